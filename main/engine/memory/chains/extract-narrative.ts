/**
 * NARRATIVE chains: events in the order they are told. An event is a clause in the past tense
 * with a subject (English: a pronoun or "the X" before a past or perfect verb; Chinese: 了 in a
 * clause that also has a personal subject, a story connective such as 后来/之后/结果, or a date).
 * A story is one narrator's: consecutive events of one speaker, ended by two messages without
 * an event or by another speaker's event, or by an event dated before the story's last dated
 * one (a flashback is another story). A story needs three events, or two with a narrative
 * connective ("after that", "later", "后来", "之后", "接着").
 */
import type { ExtractedChain } from '../../../../shared/types/memory.js';
import { chainFromSteps, type Step } from './build-chain.js';
import { splitClauses, type Unit } from './text-units.js';
import { findTimes, HABIT, isStoryRelative } from './time-expressions.js';

const GAP_MESSAGES = 2;
/** Steps kept per sentence: a long sentence of clauses is still one moment of the story. */
const MAX_EVENTS_PER_SENTENCE = 2;

const IRREGULAR_PAST =
  'went|took|got|saw|met|found|left|came|made|ate|bought|flew|drove|rode|ran|spent|told|said|thought|knew|began|woke|slept|caught|lost|gave|wrote|sat|stood|paid|fell|felt|kept|brought|heard|put|did|had|(?:was|were)(?=\\s+(?:not\\s+)?(?:\\w+ed|\\w+ing|been|born|taken|given|told|sent|made|left|found|caught|lost|stuck|broken)\\b)|shipped|hit|forgot|sent|built|broke|became|won|shut|set|held|led|grew|threw|chose|wore|hid|drank|fed|taught|understood';
// "was"/"were" tell an event only as an auxiliary ("it was released", "we were waiting"); before
// an adjective or a place ("he was quick", "the gauge was at 1.5 bar") they describe a state.
// Not "you": "you set max", "you saw" are instructions or hypotheticals in chat far more often than a story.
// "the X Y" allows a two-word subject ("the pilot customers") but not "the pool is", whose verb is "is".
const SUBJECT = String.raw`(?:I|we|he|she|they|it|my \w+|our \w+|his \w+|her \w+|their \w+|the \w+(?: (?!is\b|are\b|was\b|were\b|be\b|has\b|have\b)\w+)?|customers|everyone|someone)`;
// A subject, up to three adverbs or auxiliaries, then a past verb; "-eed" words (need, speed) are not past tense.
// Not "has/have": the present perfect ("it has dropped twice", "the pressure has stayed at 1.3")
// reports where things stand now, not a moment of a story.
const PAST_EN = new RegExp(String.raw`\b${SUBJECT}\s+(?:(?:just|then|finally|also|never|actually|eventually|already|still|really|first|only|all|had)\s+){0,3}(?:\w+(?<!e)ed|${IRREGULAR_PAST})\b`, 'i');
// Chinese: 了 (not that of "好了"/"算了"/"对了") in a clause with a personal subject, a story connective or a date.
const LE = /(?<![好算对行完])了(?![吗呢吧])/;
const CN_STORY_CUE = /我|我们|他|她|他们|她们|大家|咱们|后来|之后|结果|于是|那天|第二天|当时|\d{1,2}[月日号]|[上下中]午|晚上|早上/;
// "That's what I wanted": a judgement in the present on what was said, no event.
const NOT_EVENT = /[?？]\s*$|\b(?:if|will|would|should|could|going to|let's)\b|^\W*(?:that|this|which)(?:'s| is) (?:what|why|how|exactly)\b|如果|要是|下次|应该|可以|建议|吗/i;
const CONNECTIVE = /\b(?:after that|afterwards|later|then|eventually|the next day|next morning|by the time)\b|后来|之后|接着|然后|结果|第二天|最后/i;
const CLAUSE_START = /^(?:then|and then|after that|later|afterwards|but|so)\b|^(?:然后|接着|之后|后来|结果|最后|但是|于是|就)/i;

/** Whether a clause tells something that happened (used by OPERATION to leave such clauses alone). */
// A named person ("Elena held my hand"): case-sensitive, so a sentence-initial "Then" is not a name.
const PAST_NAMED = new RegExp(String.raw`(?:^|[\s,])(?!(?:Then|And|But|So|When|After|Later|Yes|No|Ok|Okay)\b)[A-Z][a-z]+\s+(?:(?:just|then|finally|also|never|actually|eventually|already|still|really|first|only|had)\s+){0,3}(?:[a-z]+(?<!e)ed|${IRREGULAR_PAST})\b`);
// "a fish seller walked us back": an indefinite subject of up to two words.
const PAST_INDEFINITE = new RegExp(String.raw`\ban? \w+(?: (?!is\b|are\b|was\b|were\b|has\b|have\b)\w+)?\s+(?:\w+(?<!e)ed|${IRREGULAR_PAST})\b`, 'i');

// A chat report without its subject: "Deployed the fix at 17:10.", "Added the test.", "Ok, raised it to 30".
const REPORT_EN = new RegExp(String.raw`^\W*(?:(?:ok|okay|so|and|then|also|just|finally)\W+)*(?:\w+(?<!e)ed|${IRREGULAR_PAST})\s+(?:it|the|a|an|them|that|this|my|our|to|in|on|up|out|back)\b`, 'i');

// Acknowledgements ("Got it.", "I see", "知道了") answer; they tell nothing that happened.
const ACKNOWLEDGEMENT = /^\W*(?:(?:ok|okay|yes|right|great|thanks)\W+)*(?:got it|i see|understood|noted|明白了|知道了|收到)\W*$/i;

export function isPastEvent(clause: string): boolean {
  if (NOT_EVENT.test(clause) || ACKNOWLEDGEMENT.test(clause)) return false;
  return PAST_EN.test(clause) || PAST_NAMED.test(clause) || PAST_INDEFINITE.test(clause) || REPORT_EN.test(clause) || (LE.test(clause) && CN_STORY_CUE.test(clause));
}

export function extractNarrative(units: Unit[], createdAt: string): ExtractedChain[] {
  const chains: ExtractedChain[] = [];
  let story: Step[] = [];
  let connectives = 0;
  let storyDay: string | undefined;
  let lastPosition = -Infinity;
  const flush = () => {
    if (story.length >= 3 || (story.length === 2 && connectives > 0)) {
      const chain = chainFromSteps('NARRATIVE', story, { complete: story.length >= 3 }, createdAt);
      if (chain) chains.push(chain);
    }
    story = [];
    connectives = 0;
    storyDay = undefined;
  };
  let narrator: string | undefined;
  for (const unit of units) {
    if (unit.position - lastPosition > GAP_MESSAGES) flush();
    let inSentence = 0;
    for (const clause of splitClauses(unit.text, CLAUSE_START)) {
      // "my manager was asking every ten minutes", "we always went there": a habit, not an event.
      if (!isPastEvent(clause) || HABIT.test(clause)) continue;
      // A story is told forwards: an event dated before the story's last dated one ("I bought poles
      // on Saturday." … "I did that loop two years ago.") goes back to another story.
      const day = findTimes(clause, { anchor: unit.timestamp, past: true }).find((t) => t.iso && !isStoryRelative(t.text))?.iso?.slice(0, 10);
      if (narrator !== unit.speaker || (day && storyDay && day < storyDay)) {
        flush();
        narrator = unit.speaker;
      }
      if (day) storyDay = day;
      const connective = CONNECTIVE.exec(clause)?.[0];
      if (connective) connectives += 1;
      lastPosition = unit.position;
      if (inSentence >= MAX_EVENTS_PER_SENTENCE) continue;
      inSentence += 1;
      const verb = PAST_EN.exec(clause)?.[0] ?? LE.exec(clause)?.[0];
      story.push({ role: 'event', text: clause, unit, marker: connective ?? (verb ? `past: ${verb}` : undefined) });
    }
  }
  flush();
  return chains;
}

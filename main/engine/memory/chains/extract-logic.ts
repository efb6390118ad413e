/**
 * LOGIC chains: premise → inference → conclusion. A chain starts at a sentence with a premise
 * marker ("if", "since", "given that", "如果", "既然", "假如"); an "if A, then B" sentence is two
 * steps. Following sentences with an inference marker ("which means", "hence", "thus",
 * "因此", "可见", "所以说", "说明") within a couple of messages continue it; the last step is
 * the conclusion. "since" followed by a time ("since Monday", "since the migration") is not a
 * premise, nor is a condition whose consequent is a plan or an offer ("If A, we'll…"). Without a
 * premise marker: an argument inside one sentence ("A, so B must…", "A，说明B") and a reply that
 * concludes from the message it answers ("Then the limit was the bottleneck").
 */
import type { ExtractedChain } from '../../../../shared/types/memory.js';
import { chainFromSteps, type Step } from './build-chain.js';
import { CAUSE_BACKWARD, EPISTEMIC, INFERS, isMechanism, JUDGEMENT, NEXT_TIME } from './extract-causal.js';
import { IMPERATIVE } from './extract-operation.js';
import { CONDITIONAL, type Unit } from './text-units.js';

const WINDOW_MESSAGES = 2;

const PREMISE = /\b(?:if|since|given that|assuming|suppose|provided that|as long as)\b|如果|假如|要是|既然|假设|只要/i;
// Conditionals that introduce no reasoning: offers, checks and idioms.
// "if" after a verb of knowing or asking ("I'm not sure if…", "let me know if…") asks whether; it states no condition.
const NOT_PREMISE = /\b(?:if you (?:really |just )?(?:want|like|need|prefer)|if possible|if needed|if necessary|as if|even if|see if|check if|ask if|wonder if|(?:sure|know|tell (?:me|us|you)|find out|unclear|decide) if|since (?:then|\d|yesterday|last|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december))\b/i;
// Markers that carry an argument on into the next sentence ("then" and "就" only work inside an if-sentence).
// "so that" / "so we can" / "so you know what to expect" state a purpose, not an inference.
const INFERENCE = /\b(?:which means|that means|this means|it follows|hence|thus|therefore|consequently|implies|in that case|so(?!\s+(?:that|(?:we|you|i|they)\s+(?:can|know|see|have|get|don't|won't|never))\b))\b|那么|因此|可见|所以说|所以|也就是说|意味着|于是|说明/i;
// Markers that close an argument: nothing after them continues the chain.
// (Only punctuation, or 这/那, before the Chinese marker: \W would skip Chinese words, and "我们因此决定…"
// does not open with 因此. 说明书 is a manual.)
const CONCLUSION = /^\W*(?:hence|thus|therefore|consequently|this shows|which shows|it follows)\b|^[\s\p{P}]*(?:这|那)?(?:就)?(?:可见|所以说|因此|说明(?!书)|由此可见)/iu;
// Inside one sentence with no premise marker, where a conclusion drawn from the clause before it
// starts: after a comma, "so"/"所以" (when the clause infers or judges: see EPISTEMIC, JUDGEMENT),
// "which means", "那" (not "那个/那里…"), "看来", "可见", "所以说", "说明"; after a clause,
// "说明"/"意味着" ("少了十二行说明…", "日志里没有回调记录，说明…").
const INNER_CONCLUSION = /[,，]\s*(?:so\b|which means|that means|那(?![个些里边天时种样么])|看来|可见|所以说|所以|说明|意味着)|(?<=[\p{Script=Han}\p{N}])(?:说明|意味着)/iu;
// A reply that opens on what the other speaker just said ("Then the limit was the bottleneck",
// "In that case the HTML route is the better fit", "So the total is 15,700"): its conclusion,
// drawn from that message. Not "then at 22:15…" (what happened next). A Chinese reply opening
// with 那 is nearly always a decision or a suggestion ("那就定周五", "那可以试试…"; none of
// fifteen on the tune half concludes), so it is left out.
const REPLY_CONCLUSION = /^\W*(?:then\b(?!\s+(?:at|on|around|after|before|the next)\b)|in that case\b|so\b(?!\s+(?:that|what|how|why|when|far)\b))/i;
// A guess ("Maybe…", "那很可能是…", "会不会…") is no conclusion.
const HEDGE = /\b(?:maybe|perhaps|probably|possibly|might|could be)\b|可能|也许|大概|或许|会不会|说不定|估计|猜/i;
// A first-person plan or offer ("we'll add a consumer", "I can write it", "我们就先…", "我可以帮你…"):
// what someone will do if the condition holds, not what follows from it.
const PLAN = /^\W*(?:(?:then\s+)?(?:we|i)(?:'ll| will| can| could| would)\b)|^\W*(?:那)?(?:我们|我|咱们)(?:就|可以|会|来|先|再)/i;
// A decision taken ("we're going with St Mary's", "I'll book it tomorrow", "那就定…"): what someone will do, not what follows.
const DECISION = /^\W*(?:(?:we|i)(?:'re| are|'m| am) going (?:with|for)|(?:we|i)(?:'ll| will)\b|let'?s\b)|^(?:那就定|就定|决定)/i;
// Inside an "if" sentence, where the consequent starts.
const CONSEQUENT = /(?:,|，)\s*(?:then\b|那么|那就|就|那)?|\bthen\b/i;

export function extractLogic(units: Unit[], createdAt: string): ExtractedChain[] {
  const chains: ExtractedChain[] = [];
  const used = new Set<Unit>();
  for (let i = 0; i < units.length; i += 1) {
    const unit = units[i] as Unit;
    if (used.has(unit)) continue;
    // "If A, B, so C" tells a mechanism: CAUSAL's chain, not also an argument.
    if (isMechanism(unit.text)) continue;
    const premise = PREMISE.exec(unit.text);
    if (!premise || !isPremise(unit.text)) {
      const inner = splitInference(unit);
      if (inner) {
        const chain = chainFromSteps('LOGIC', inner, { complete: true }, createdAt);
        if (chain) chains.push(chain);
        used.add(unit);
        continue;
      }
      const reply = replyConclusion(units, i);
      if (reply) {
        const chain = chainFromSteps('LOGIC', reply, { complete: true }, createdAt);
        if (chain) chains.push(chain);
        used.add(unit);
        continue;
      }
      // "Hence X" / "可见X" with no premise marker before it: the sentence before is its premise.
      const previous = units[i - 1];
      if (CONCLUSION.test(unit.text) && previous && !used.has(previous) && !isQuestion(previous.text)) {
        const chain = chainFromSteps('LOGIC', [{ role: 'premise', text: previous.text, unit: previous }, { role: 'conclusion', text: unit.text, unit, marker: CONCLUSION.exec(unit.text)?.[0].trim() }], { complete: true }, createdAt);
        if (chain) chains.push(chain);
        used.add(unit);
      }
      continue;
    }
    const steps: Step[] = splitConditional(unit, premise[0]);
    used.add(unit);
    for (let j = i + 1; j < units.length; j += 1) {
      const next = units[j] as Unit;
      const last = steps[steps.length - 1] as Step;
      if (next.position - last.unit.position > WINDOW_MESSAGES) break;
      const marker = INFERENCE.exec(next.text);
      // Only sentences that open with (or soon reach) a marker carry the argument on.
      if (!marker || marker.index > 24) continue;
      // A new premise starts a new argument.
      if (PREMISE.test(next.text) && isPremise(next.text)) break;
      // A question asks whether the argument holds; advice or a decision ("So we're going with St Mary's") acts on it: neither carries it on.
      const carried = next.text.slice(marker.index + marker[0].length).replace(/^[\s,，:：]+/, '');
      if (isQuestion(next.text) || isAdvice(carried) || DECISION.test(carried)) continue;
      steps.push({ role: 'inference', text: next.text, unit: next, marker: marker[0] });
      used.add(next);
      if (CONCLUSION.test(next.text)) break;
    }
    if (steps.length < 2) continue;
    const lastStep = steps[steps.length - 1] as Step;
    if (lastStep.role !== 'premise') lastStep.role = 'conclusion';
    const chain = chainFromSteps('LOGIC', steps, { complete: lastStep.role === 'conclusion' }, createdAt);
    if (chain) chains.push(chain);
  }
  return chains;
}

/** An instruction or suggestion ("look at it first", "let's…", "你先看看"): what to do, not what follows. */
function isAdvice(text: string): boolean {
  return IMPERATIVE.test(text) || /^\s*(?:let'?s|you (?:could|can|should|need to|have to|might want to)|we (?:could|can|should)|maybe|try|please|don'?t)\b|^\s*(?:你|我们)?(?:先|可以|应该|不妨|试试|最好)/i.test(text) || isQuestion(text);
}

function isQuestion(text: string): boolean {
  return /[?？]\s*$/.test(text);
}

/** A premise marker that introduces reasoning: not an offer ("if you want"), a time ("since Monday") or a question. */
function isPremise(text: string): boolean {
  return !NOT_PREMISE.test(text) && !isQuestion(text) && !isSinceTime(text);
}

// Words that make the words after "since" a clause (a reason) rather than a noun phrase (a time).
const CLAUSE_WORD = /^(?:is|are|was|were|be|been|has|have|had|do|does|did|can|could|will|would|should|must|may|might|it|they|we|you|i|he|she|there)$|'s$|'re$|n't$|ed$/i;

/** "since my knee injury", "since Tuesday's release", "the first time since the migration": a time, not a premise. */
function isSinceTime(text: string): boolean {
  const since = /\bsince\s+([^,;:.!?]+)[,;:.!?]?\s*$/i.exec(text);
  if (!since || /\bsince\b/i.test(text.slice(0, since.index))) return false;
  const words = (since[1] as string).trim().split(/\s+/);
  return words.length <= 4 && !words.some((w) => CLAUSE_WORD.test(w));
}

/**
 * The first sentence of a reply that opens on the other speaker's message ("Then…", "In that
 * case…", "So…"): premise the last statement of that message, conclusion the sentence.
 * Undefined for a question, a guess, an instruction, a sentence that gives a cause (CAUSAL's),
 * and when the message before asks, advises (the reply accepts advice: a decision) or is the same speaker's.
 */
function replyConclusion(units: Unit[], i: number): Step[] | undefined {
  const unit = units[i] as Unit;
  const opener = REPLY_CONCLUSION.exec(unit.text);
  if (!opener || unit.sentence !== 0) return undefined;
  const rest = unit.text.slice(opener[0].length).replace(/^[\s,，:：]+/, '');
  if (rest.length < 4 || isQuestion(unit.text) || HEDGE.test(unit.text) || CAUSE_BACKWARD.test(unit.text) || CONDITIONAL.test(rest) || IMPERATIVE.test(rest) || DECISION.test(rest)) return undefined;
  // "Then there are two options", "Then a plan for June 19: …": what comes next is listed, not
  // concluded; "Then you could rent an e-bike" suggests. A conclusion judges the situation: a
  // copula ("Then the limit was the bottleneck"), a modal of belief or a judgement ("unlikely").
  if (/^there (?:is|are|were|was)\b|[:：]/i.test(rest) || /\bcould\b/i.test(rest)) return undefined;
  // "Then next time the dashboards refresh, they'll have…": what will happen on a later occasion, a prediction, not a conclusion.
  if (NEXT_TIME.test(rest.slice(0, 12))) return undefined;
  // "Then the update is ready to send", "Then the report is complete": the last item of a checklist
  // acknowledged, the exchange closed, nothing concluded from it.
  if (/^(?:the|that|this|it|we|you|everything)\b[^,;:.]*\b(?:is|are|'s|'re)\s+(?:now\s+)?(?:ready|complete|done|all set|settled|sorted|covered)\b/i.test(rest)) return undefined;
  if (!/\b(?:is|are|was|were)\b|'s\b|'re\b/i.test(rest) && !EPISTEMIC.test(rest) && !JUDGEMENT.test(rest)) return undefined;
  let j = i - 1;
  while (j >= 0 && (units[j] as Unit).position === unit.position) j -= 1;
  const premise = units[j];
  if (!premise || premise.position !== unit.position - 1 || premise.speaker === unit.speaker) return undefined;
  if (isQuestion(premise.text) || isAdvice(premise.text) || /建议|\b(?:i'd|you should|we should)\b/i.test(premise.text)) return undefined;
  return [
    { role: 'premise', text: premise.text, unit: premise },
    { role: 'conclusion', text: unit.text, unit, marker: opener[0].trim() },
  ];
}

/**
 * "A, so B must be…", "A，那B应该…", "A说明B": an argument inside one sentence, premise A and
 * conclusion B (its marker kept: a step is the clause as written). Undefined when the sentence has
 * no such marker, asks, or its second half gives advice or states no inference.
 */
function splitInference(unit: Unit): Step[] | undefined {
  const text = unit.text;
  if (isQuestion(text) || CONDITIONAL.test(text)) return undefined;
  const cut = INNER_CONCLUSION.exec(text);
  if (!cut) return undefined;
  const marker = cut[0].replace(/^[,，]\s*/, '');
  const premiseText = text.slice(0, cut.index).trim();
  const conclusion = text.slice(cut.index + cut[0].length - marker.length).trim();
  const body = conclusion.slice(marker.length).replace(/^[\s,，]+/, '');
  if (premiseText.length < 2 || body.length < 2 || isAdvice(body)) return undefined;
  // "要先跟他们说明情况", "看说明书", "说明一下": 说明 as "explain" (to someone) or a manual, not "which shows".
  if (marker === '说明' && (/(?:跟|向|给|对|和|同)[\p{Script=Han}]{0,6}$/u.test(premiseText) || /^说明(?:书|会|一下)/.test(conclusion))) return undefined;
  // "X, probably because Y, so Z" explains a cause: CAUSAL's sentence.
  if (CAUSE_BACKWARD.test(premiseText)) return undefined;
  // "so"/"所以"/"那" join many clauses that are not arguments ("it rained, so we stayed in"):
  // they conclude only when what follows is inferred (a modal of belief or necessity) or judged
  // ("so a third consumer is safe", "所以一台也够").
  if (/^(?:so|所以|那)$/i.test(marker) && !EPISTEMIC.test(body) && !JUDGEMENT.test(body) && !INFERS.test(body)) return undefined;
  return [
    { role: 'premise', text: premiseText, unit, marker },
    { role: 'conclusion', text: conclusion, unit, marker },
  ];
}

/** "If A, then B, which means C" → premise A, inference B, conclusion C (roles fixed later). */
function splitConditional(unit: Unit, marker: string): Step[] {
  const text = unit.text;
  const start = text.toLowerCase().indexOf(marker.toLowerCase());
  const rest = text.slice(start + marker.length);
  const cut = CONSEQUENT.exec(rest);
  if (!cut || cut.index < 2) return [{ role: 'premise', text, unit, marker }];
  const premiseText = text.slice(0, start + marker.length + cut.index).trim();
  const tail = rest.slice(cut.index + cut[0].length).trim();
  // "Since X, look at it first" / "If it fails, restart it" gives advice, "If it comes back, we'll
  // add a consumer" / "如果需要的话，我可以帮你…" a plan or an offer: not an inference, no chain.
  if (isAdvice(tail) || PLAN.test(tail)) return [{ role: 'premise', text, unit, marker }];
  const steps: Step[] = [{ role: 'premise', text: premiseText, unit, marker }];
  // Further markers inside the consequent ("which means", "hence", "因此", "可见") are further steps.
  const pieces = tail.split(/(?:,|，)\s*(?=which means|that means|so\b|hence|thus|therefore|因此|可见|所以|那么|意味着|说明)/i);
  for (const piece of pieces) {
    if (piece.trim().length < 2) continue;
    // "…，五点可能出不了门，所以最好让车四点就到": what the argument advises is a decision, not one of its steps.
    if (steps.length > 1 && isAdvice(piece.trim().replace(/^(?:so|hence|thus|therefore|因此|所以|那么)[\s,，]*/i, ''))) break;
    steps.push({ role: 'inference', text: piece.trim(), unit, marker: (INFERENCE.exec(piece)?.[0] ?? cut[0].replace(/[,，\s]/g, '')) || marker });
  }
  return steps;
}

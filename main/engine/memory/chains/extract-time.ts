/**
 * TIME chains: the moments a conversation names, in the order it names them. Each time
 * expression is a node (at most three per sentence), with `time` set to the resolved ISO date or
 * date-time when possible and to the expression as written otherwise. A clock time without a
 * date takes the date of the previous moment ("9月12日 … 下午一点半"); "第二天"/"the next day"
 * count from the previous moment (the same speaker's: after another's they are no date), other
 * relative days from the message's timestamp. A timeline
 * ends after more than two messages without a time expression (a plan that goes quiet and comes
 * back later is a new timeline), and where it turns from what happened to what is planned ("I
 * signed today. They start on March 16."): a report and the plan after it are two timelines, while
 * a plan and how it went ("He can come on Thursday." … "The plumber came at ten.") are one.
 * Not moments: a habit ("I usually walk to work every morning"), an instruction ("Book the slot for
 * March 2"), and any time in a sentence that
 * opens with a condition ("If it has to finish by April 4, it has to start by March 7"): both
 * the condition and what follows from it may never happen.
 */
import type { ExtractedChain } from '../../../../shared/types/memory.js';
import { isStopWord } from '../../../lib/text-analysis.js';
import { chainFromSteps, type Step } from './build-chain.js';
import { CONDITIONAL, type Unit } from './text-units.js';
import { isPastEvent } from './extract-narrative.js';
import { IMPERATIVE, isInstruction, SEQUENCE } from './extract-operation.js';
import { findTimes, HABIT, isoMillis, isRoughSpan, isStoryRelative, resolveStoryRelative } from './time-expressions.js';

const GAP_MESSAGES = 2;
const MAX_PER_SENTENCE = 3;

export function extractTime(units: Unit[], createdAt: string): ExtractedChain[] {
  const chains: ExtractedChain[] = [];
  let steps: Step[] = [];
  let lastPosition = -Infinity;
  let storyDate: string | undefined;
  let storySpeaker: string | undefined;
  const flush = () => {
    // A timeline is made of moments placed on the calendar or the clock; vague ones ("今年",
    // "last year", "一周") are not steps of it, and two placed moments are needed.
    // The same moment said twice ("光纤要到6月3号才能开通" / "6月3号开通") is no sequence either.
    const placed = steps.filter((s) => isPlaced(s.time));
    const chain = new Set(placed.map((s) => s.time)).size >= 2 ? chainFromSteps('TIME', placed, { complete: placed.filter((s) => s.time && /^\d{4}-/.test(s.time)).length >= 2 }, createdAt) : undefined;
    if (chain) chains.push(chain);
    steps = [];
    storyDate = undefined;
    previousIso = undefined;
    mode = undefined;
    aheadDay = undefined;
  };
  let previousIso: string | undefined;
  // Whether the timeline's last moment told what happened ('past') or what is to come ('ahead').
  let mode: Mode | undefined;
  // The day of the timeline's latest planned moment: what happened before it is not how the plan went.
  let aheadDay: string | undefined;
  for (const unit of units) {
    // A question names no moment of its own ("第二天顺利吗？" asks about one already told).
    if (/[?？]\s*$/.test(unit.text) || CONDITIONAL.test(unit.text)) continue;
    // "Book the delivery slot for March 2", "Then send it by March 12": advice names the day of a
    // step to take, a to-do, not a moment of what happened or of a plan someone has made.
    if (isInstruction(unit.text)) continue;
    const mentions = findTimes(unit.text, { anchor: unit.timestamp, story: storyDate, past: isPastTense(unit.text) });
    if (mentions.length === 0) continue;
    if (unit.position - lastPosition > GAP_MESSAGES) flush();
    lastPosition = unit.position;
    let added = 0;
    let clause: { start: number; end: number; step: Step } | undefined;
    const notMoments = windowsAndOptions(unit.text, mentions);
    // "她每周二和周四下午四点上钢琴课，周六上午还有游泳": a sentence that opens on a habit lists a schedule.
    const opening = unit.text.slice(0, mentions[0]?.index ?? 0);
    // "I check the table before 7:00 on Mondays", "On the other nights it can keep starting at 2:00":
    // a day that recurs (a plural) makes the times a schedule.
    // "The hall opens for set-up at 7:00", "the dashboards refresh their cache at 7:00": a clock time
    // with no day, in the present, is when something happens as a rule (a timetable), not a moment.
    const timetable = mentions.every((m) => CLOCK_ONLY.test(m.text)) && TIMETABLE_VERB.test(unit.text);
    const habitual = ((HABIT.test(opening) || RECURRING.test(opening)) && !CONTRAST.test(unit.text)) || SCHEDULE.test(unit.text) || timetable;
    for (const [at, mention] of mentions.entries()) {
      if (habitual || notMoments.has(at)) continue;
      // "每周一", "every Monday", "一周三次": a habit, not a moment.
      if (RECURRING.test(unit.text.slice(Math.max(0, mention.index - 3), mention.index)) || /^[一二三四五六七八九十\d]+次/.test(unit.text.slice(mention.index + mention.text.length))) continue;
      let iso = isRoughSpan(mention.text) ? undefined : mention.iso;
      // "The next day" counts from the speaker's own last moment; said after someone else's, it is
      // no date ("Start short, and see how the knee feels the next day" after "I bought poles on Saturday").
      if (isStoryRelative(mention.text) && storyDate) iso = storySpeaker === unit.speaker ? (resolveStoryRelative(mention.text, storyDate) ?? iso) : undefined;
      else if (!iso && storyDate) iso = clockOnDate(mention.text, storyDate, previousIso);
      if (iso) {
        storySpeaker = unit.speaker;
        storyDate = iso.slice(0, 10);
        previousIso = iso;
      }
      const time = iso ?? mention.text;
      // Two mentions in one clause ("that night at 11pm") are one moment: the more precise time names it.
      if (clause && mention.index < clause.end) {
        if (time.length > (clause.step.time ?? '').length || (iso && !isoMillis(clause.step.time))) Object.assign(clause.step, { time, marker: mention.text });
        continue;
      }
      if (added >= MAX_PER_SENTENCE) break;
      const span = clauseAround(unit.text, mention.index);
      // A condition ("if it rains on the day", "如果当天气温低于零度") names a moment that may never come.
      if (HYPOTHETICAL.test(unit.text.slice(span.start, mention.index))) continue;
      const text = unit.text.slice(span.start, span.end);
      if (!tellsAnEvent(text, mentions, span.start) || HABIT.test(text) || (describesTheDay(text) && !isStoryRelative(mention.text)) || FROM_THEN_ON.test(text)) continue;
      // Only a placed moment is a step of the timeline (see flush), so only it tells its mode.
      const stepMode = isPlaced(time) ? modeOf(text, unit, iso && !isStoryRelative(mention.text) ? iso : undefined) : undefined;
      // A report followed by a plan is two timelines; a plan followed by how it went is one.
      // How a plan went comes on or after its day: an earlier past moment ("I'll message her
      // tonight." / "I ran 5 km on Sunday") is another matter, told in passing.
      const day = iso?.slice(0, 10);
      const beforePlan = stepMode === 'past' && mode === 'ahead' && isPastEvent(text) && day !== undefined && aheadDay !== undefined && day < aheadDay;
      if ((stepMode === 'ahead' && mode === 'past') || beforePlan) {
        flush();
        lastPosition = unit.position;
      }
      mode = stepMode ?? mode;
      if (stepMode === 'ahead' && day && (!aheadDay || day > aheadDay)) aheadDay = day;
      const step: Step = { role: 'moment', text: unit.text.slice(span.start, span.end).trim(), unit, marker: mention.text, time };
      clause = { ...span, step };
      steps.push(step);
      added += 1;
    }
  }
  flush();
  return chains;
}

const RECURRING = /(?:每个?|every\s+|each\s+)$/i;
const CLOCK_ONLY = /^(?:(?:at|by|until|till|before|after|from|around|about)\s+)?\d{1,2}(?:[:.]\d{2})?(?:\s*(?:am|pm|a\.m\.|p\.m\.))?$/i;
const TIMETABLE_VERB = /\b(?:opens|closes|starts|begins|ends|finishes|runs|leaves|departs|arrives|reads|refreshes|fires|shuts)\b|\b\w+s\s+(?:open|close|start|begin|end|finish|run|leave|depart|arrive|refresh|fire)\b/i;
const SCHEDULE = /\b(?:on|at|in the)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekdays|weekends|nights|mornings|evenings|afternoons)\b|\b(?:on|at) the other (?:days|nights|mornings|evenings)\b/i;
const CONTRAST = /\b(?:but|except|instead)\b|但是|不过|可是|除了/i;

// Between two times: a window ("from 18:00 to 21:00", "周一到周五", "Wednesday to Friday"), a
// choice ("the 7:00 or 9:30", "3月10号上午十点，或者3月12号下午三点"), or, between weekdays,
// the days of a schedule ("周二、周四", "Tuesday and Thursday").
const RANGE_BETWEEN = /^\s*(?:to|until|till|through|[-–—~]|到|至)\s*$/i;
const OPTION_BETWEEN = /^[\s,，]*(?:or|either|或者|或是|或|还是)\s*(?:(?:on|at|before|after|by|the)\s+)*$/i;
const LIST_BETWEEN = /^\s*(?:、|和|及|与|,|and|&)\s*$/i;
// "…before that or after July 3": a time offered as the other option.
const OPTION_BEFORE = /(?:\bor|或者|或是|还是)\s*(?:(?:on|at|before|after|by|the)\s+)*$/i;
// "As of this morning", "no errors since Saturday", "截至昨天": the point a state is measured
// from, not something that happens then.
const REFERENCE_BEFORE = /\b(?:as of|since)\s+$|(?:截至|截止到?|自从)\s*$/i;
// "16号以后钢琴就改到周五", "from then on": the clause tells what holds from a day on (a schedule
// that changes), not what happens on it.
const FROM_THEN_ON = /(?:[号日月年天]|周[一二三四五六日天])(?:以后|以来)|\bfrom (?:then|that day|now) on\b/i;

/**
 * The mentions of a sentence (by their index in `mentions`) that name no moment of a timeline:
 * the two ends of a window, the times offered as options, the days of a weekly schedule, and
 * the points a state is measured from.
 */
function windowsAndOptions(text: string, mentions: { index: number; text: string; weekday?: boolean }[]): Set<number> {
  const out = new Set<number>();
  mentions.forEach((mention, i) => {
    const end = mention.index + mention.text.length;
    if (REFERENCE_BEFORE.test(text.slice(Math.max(0, mention.index - 12), mention.index))) out.add(i);
    if (OPTION_BEFORE.test(text.slice(Math.max(0, mention.index - 16), mention.index))) out.add(i);
    const next = mentions[i + 1];
    if (!next) return;
    const between = text.slice(end, next.index).replace(/^\s*from\s+/i, '');
    const weekdays = isWeekday(mention.text) && isWeekday(next.text);
    if (RANGE_BETWEEN.test(between) || OPTION_BETWEEN.test(between) || (LIST_BETWEEN.test(between) && weekdays)) {
      out.add(i);
      out.add(i + 1);
    }
  });
  return out;
}

function isWeekday(expression: string): boolean {
  return /^(?:(?:on|this|next|last)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|^(?:周|星期|礼拜)[一二三四五六日天]/i.test(expression);
}

/**
 * How a day was or felt, not what happened on it: the time as the subject of "was/is"
 * ("Yesterday was a long day", "December 3 is a Wednesday"), or a feeling ("today it feels
 * under control", "今天总算好一点", "上周真是忙疯了"). Inside a story ("第二天好多了", counted
 * from the story's last day) how the next day went is a moment of it: the caller keeps those.
 */
function describesTheDay(clause: string): boolean {
  return DAY_AS_SUBJECT.test(clause) || FEELING.test(clause);
}
const DAY_AS_SUBJECT = /^\W*(?:(?:but|and|so)\s+)?(?:yesterday|today|tonight|tomorrow|(?:last|this|next)\s+\w+|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?)\s+(?:was|is|were|will be|has been)\b/i;
const FEELING = /\b(?:feel|feels|felt|seem|seems|seemed)\b|感觉|觉得|好一点|好多了|累|忙疯|轻松|辛苦|紧张/i;

// A past state counts as the past for a weekday: "The gauge was at 1.5 bar on Saturday" is the last Saturday.
const PAST_STATE = /\b(?:was|were|had)\b/i;

function isPastTense(text: string): boolean {
  return isPastEvent(text) || (PAST_STATE.test(text) && !AHEAD.test(text));
}

type Mode = 'past' | 'ahead';
// Grammar that looks ahead: a future or an intention, a proposal or a schedule being set.
const AHEAD = /\b(?:will|won't|shall|going to|gonna|plan(?:s|ning)? to|intend to|let's|can start)\b|'ll\b|打算|计划|安排|定在|将会|要在|会在|建议/i;

/**
 * Whether a moment tells what happened or what is to come: by its date against the message's own
 * (a resolved date before the message's day is past, after it ahead), else by the clause's
 * grammar (a past event; a future, an intention or an instruction), else unknown.
 */
function modeOf(clause: string, unit: Unit, iso: string | undefined): Mode | undefined {
  const day = unit.timestamp?.slice(0, 10);
  if (iso && day && /^\d{4}-\d{2}-\d{2}/.test(iso)) {
    if (iso.slice(0, 10) < day) return 'past';
    if (iso.slice(0, 10) > day) return 'ahead';
  }
  if (isPastEvent(clause)) return 'past';
  if (AHEAD.test(clause) || IMPERATIVE.test(clause.replace(SEQUENCE, '').replace(/^[\s,，:：]+/, ''))) return 'ahead';
  return undefined;
}

/**
 * Whether a moment's clause says what happens at its time: without the time expressions it keeps
 * a content word (English: not a function word, not an agreement such as "works" or "fine";
 * Chinese: two characters besides 是/的/了/就…). "Thursday works.", "十五号是周六" and a bare
 * "周一" only name a time (agree to one, restate one): no moment of a timeline.
 */
function tellsAnEvent(clause: string, mentions: { index: number; text: string }[], offset: number): boolean {
  let rest = clause;
  for (const m of [...mentions].sort((a, b) => b.index - a.index)) {
    const at = m.index - offset;
    if (at >= 0 && at < rest.length) rest = rest.slice(0, at) + ' ' + rest.slice(at + m.text.length);
  }
  const words = (rest.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !isStopWord(w) && !AGREEMENT.has(w));
  // A numbered day the time patterns leave alone ("十五号") is a date too, not what happens on it.
  const han = (rest.replace(/[零〇一二两三四五六七八九十\d]+号/g, ' ').match(/\p{Script=Han}/gu) ?? []).filter((c) => !'是的了在就那这也都吧吗呢啊'.includes(c));
  return words.length >= 1 || han.length >= 2;
}

const AGREEMENT = new Set(['works', 'work', 'fine', 'good', 'great', 'suits', 'perfect', 'ok', 'okay', 'sure', 'then']);
const HYPOTHETICAL = /\b(?:if|unless|in case|suppose)\b|如果|假如|要是|万一|假设/i;

/** A time on the calendar (a day or a month) or on the clock. */
function isPlaced(time: string | undefined): boolean {
  return time !== undefined && (/^\d{4}-\d{2}(?:-\d{2})?(?:T|$)/.test(time) || /\d{1,2}[:：]\d{2}|[点點]/.test(time));
}

// Where one moment's clause ends: a comma, semicolon or dash between clauses, or "and" ("write
// it today and share it tomorrow" is two moments).
const CLAUSE_BREAK = /[,，;；、]\s*|\s+[–—-]\s+|\s+(?:and|then)\s+(?=\w)/g;

/** The clause of `text` holding `index`: its own words, a slice of the sentence as written. */
function clauseAround(text: string, index: number): { start: number; end: number } {
  let start = 0;
  let end = text.length;
  CLAUSE_BREAK.lastIndex = 0;
  for (let m = CLAUSE_BREAK.exec(text); m !== null; m = CLAUSE_BREAK.exec(text)) {
    if (m.index + m[0].length <= index) start = m.index + m[0].length;
    else if (m.index >= index) {
      end = m.index;
      break;
    }
  }
  return { start, end };
}

/**
 * A clock time alone ("下午五点", "at 11pm") placed on the story's current date. A 12-hour time
 * without am/pm that would fall before the previous moment is read as pm ("三点 … 四点钟").
 */
function clockOnDate(expression: string, date: string, previousIso: string | undefined): string | undefined {
  const merged = findTimes(`${date} ${expression}`)[0];
  if (!merged?.iso || merged.iso.length <= 10) return undefined;
  const at = isoMillis(merged.iso);
  const before = isoMillis(previousIso);
  const hour = Number(merged.iso.slice(11, 13));
  if (at !== undefined && before !== undefined && at < before && hour < 12 && at + 12 * 3600_000 >= before) {
    return `${merged.iso.slice(0, 11)}${String(hour + 12).padStart(2, '0')}${merged.iso.slice(13)}`;
  }
  return merged.iso;
}

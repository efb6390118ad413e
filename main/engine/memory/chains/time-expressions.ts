/**
 * Time expressions in English and Chinese: found with one precompiled regex, and resolved to an
 * ISO date (or date and time) where the text and the message's timestamp allow it. What cannot
 * be resolved ("next Tuesday" without a timestamp, "那天") is kept as written, so a TIME chain
 * still lists it; only resolved moments take part in the order checks of the validator.
 */

export interface TimeMention {
  /** The expression as written. */
  text: string;
  index: number;
  /** ISO `YYYY-MM-DD` or `YYYY-MM-DDTHH:mm` when resolvable, else undefined. */
  iso?: string;
  weekday?: boolean;
}

const MONTHS = 'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
const WEEKDAYS = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const CN_NUM = '[零〇一二两三四五六七八九十]';
const DAYPART_CN = '早上|上午|中午|下午|晚上|凌晨|傍晚|今晚|昨晚|明晚|半夜';

// One alternation, longest forms first; each branch is a named kind the resolver understands.
const TIME_SOURCE = [
  String.raw`(?<iso>\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2})?\b)`,
  String.raw`(?<mdEn>\b(?:${MONTHS})\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?\b)`,
  String.raw`(?<dmEn>\b\d{1,2}(?:st|nd|rd|th)?\s+(?:${MONTHS})\b(?:\s+\d{4})?)`,
  String.raw`(?<ymdCn>\d{4}年\d{1,2}月\d{1,2}[日号])`,
  String.raw`(?<mdCn>(?:\d{1,2}|${CN_NUM}{1,3})月(?:\d{1,2}|${CN_NUM}{1,3})[日号])`,
  String.raw`(?<relEn>\b(?:the day before yesterday|the day after tomorrow|yesterday|today|tomorrow|tonight|this (?:morning|afternoon|evening)|last (?:night|week|month|year)|next (?:week|month|year)|the (?:next|following) (?:day|morning|afternoon|evening|week)|(?:\d+|two|three|four|five|a few|a couple of) (?:days|weeks|hours|months|years) (?:ago|later))\b)`,
  String.raw`(?<wdEn>\b(?:(?:last|next|this|on|that|by)\s+)?(?:${WEEKDAYS})\b)`,
  String.raw`(?<clockEn>\b(?:at\s+)?\d{1,2}(?::\d{2})?\s*(?:(?:am|pm)(?![a-z])|a\.m\.|p\.m\.)|\b(?:at\s+)(?:\d{1,2}:\d{2}|noon|midnight)\b)`,
  // A bare day of the month ("16日上午"); 号 is left out because "3号线" is a metro line, not a date.
  String.raw`(?<dayCn>(?<![月\d])\d{1,2}日)`,
  String.raw`(?<relCn>大前天|前天|昨天|今天|明天|后天|大后天|当天|第二天|第三天|次日|上周末|这周末|下周末|上个?月|下个?月|去年|今年|明年)`,
  String.raw`(?<wdCn>(?:上|下|这|本)?(?:周|星期|礼拜)[一二三四五六日天])`,
  String.raw`(?<clockCn>(?:(?:${DAYPART_CN})(?:\d{1,2}|${CN_NUM}{1,3})[点時时]|\d{1,2}[点时]|${CN_NUM}{1,3}[点时](?=半|钟|多|\d|${CN_NUM}))(?:半|\d{1,2}分|${CN_NUM}{1,3}分)?)`,
  String.raw`(?<clockDigits>\b\d{1,2}:\d{2}\b)`,
].join('|');

const TIME_RE = new RegExp(TIME_SOURCE, 'giu');

/** A cheap pre-check: digits, month or weekday names, or the CJK characters every Chinese form uses. */
const MAYBE_TIME = new RegExp(String.raw`\d|${MONTHS}|day|night|week|month|year|noon|tonight|[天周月年点时晚早午]|星期|礼拜`, 'iu');

export interface FindTimesOptions {
  /** The message's timestamp: relative days ("yesterday", "昨天") and weekdays count from it. */
  anchor?: string;
  /** The date the story is at: bare days of the month ("16日") and month-days without a year use it. */
  story?: string;
  /** Whether the sentence tells the past: "on Friday" is then the last Friday, else the next one. */
  past?: boolean;
}

/** Every time expression in `text`, resolved to ISO where the options allow. */
export function findTimes(text: string, options: FindTimesOptions = {}): TimeMention[] {
  const { anchor, story } = options;
  if (!MAYBE_TIME.test(text)) return [];
  const out: TimeMention[] = [];
  TIME_RE.lastIndex = 0;
  for (let m = TIME_RE.exec(text); m !== null; m = TIME_RE.exec(text)) {
    const groups = m.groups ?? {};
    const kind = Object.keys(groups).find((key) => groups[key] !== undefined) ?? 'unknown';
    const expression = m[0].trim();
    const base = kind === 'dayCn' || kind === 'mdEn' || kind === 'mdCn' ? (story ?? anchor) : anchor;
    const iso = kind === 'wdEn' || kind === 'wdCn' ? resolveWeekday(expression, anchor, options.past ?? false) : resolve(kind, expression, base);
    out.push({ text: expression, index: m.index, iso, weekday: kind === 'wdEn' || kind === 'wdCn' });
  }
  return mergeAdjacent(out, text);
}

// "yesterday at 3pm", "5月8日下午三点": a date followed closely by a clock time is one moment;
// so are a weekday and a date side by side ("last Thursday, May 2", "9月12日周四"), which keep the date.
function mergeAdjacent(mentions: TimeMention[], text: string): TimeMention[] {
  const out: TimeMention[] = [];
  for (const mention of mentions) {
    const previous = out[out.length - 1];
    const close = previous !== undefined && mention.index - (previous.index + previous.text.length) <= 3;
    if (previous && close && (previous.weekday || mention.weekday) && previous.weekday !== mention.weekday) {
      const date = mention.weekday ? previous.iso : mention.iso;
      previous.text = text.slice(previous.index, mention.index + mention.text.length);
      previous.iso = date ?? previous.iso ?? mention.iso;
      previous.weekday = false;
      continue;
    }
    const clock = clockOf(mention.text);
    if (previous && clock && previous.iso && previous.iso.length === 10 && mention.index - (previous.index + previous.text.length) <= 4) {
      previous.text = text.slice(previous.index, mention.index + mention.text.length);
      previous.iso = `${previous.iso}T${clock}`;
      continue;
    }
    out.push(mention);
  }
  return out;
}

const MONTH_INDEX: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const EN_WORD_NUM: Record<string, number> = { a: 1, 'a couple of': 2, 'a few': 3, two: 2, three: 3, four: 4, five: 5 };

function resolve(kind: string, expr: string, anchor?: string): string | undefined {
  const lower = expr.toLowerCase();
  if (kind === 'iso') {
    const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2}))?/.exec(expr);
    if (!m) return undefined;
    const date = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
    return m[4] ? `${date}T${pad(Number(m[4]))}:${m[5]}` : date;
  }
  const base = anchor ? anchorDate(anchor) : undefined;
  if (kind === 'mdEn' || kind === 'dmEn') {
    const month = MONTH_INDEX[/[a-z]{3}/.exec(lower)?.[0] ?? ''];
    const day = Number(/\d{1,2}(?!\d)/.exec(lower.replace(/\d{4}/, ''))?.[0]);
    const year = Number(/\d{4}/.exec(lower)?.[0] ?? base?.getUTCFullYear());
    return month && day && year ? isoDate(year, month, day) : undefined;
  }
  if (kind === 'ymdCn' || kind === 'mdCn') {
    const m = /(?:(\d{4})年)?(.+?)月(.+?)[日号]/.exec(expr);
    if (!m) return undefined;
    const year = m[1] ? Number(m[1]) : base?.getUTCFullYear();
    const month = cnNumber(m[2] as string);
    const day = cnNumber(m[3] as string);
    return year && month && day ? isoDate(year, month, day) : undefined;
  }
  if (!base) return undefined;
  if (kind === 'dayCn') return isoDate(base.getUTCFullYear(), base.getUTCMonth() + 1, Number(expr.slice(0, -1)));
  if (kind === 'relEn') {
    const offset = relativeDaysEn(lower);
    return offset === undefined ? undefined : shift(base, offset);
  }
  if (kind === 'relCn') {
    const offset = RELATIVE_CN[expr];
    return offset === undefined ? undefined : shift(base, offset);
  }
  return undefined;
}

const WEEKDAY_INDEX: Record<string, number> = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 0, 一: 1, 二: 2, 三: 3, 四: 4, 五: 5, 六: 6, 日: 0, 天: 0 };

/**
 * Weekdays, with weeks starting on Monday: "next X"/"下周X" is X of the next week, "last X"/"上周X"
 * X of the previous week, and a bare or "this" weekday X of the current week, moved a week back
 * when the sentence tells the past and it would be in the future, or forward when the sentence
 * looks ahead and it would be past.
 */
function resolveWeekday(expr: string, anchor: string | undefined, past: boolean): string | undefined {
  const base = anchor ? anchorDate(anchor) : undefined;
  if (!base) return undefined;
  const lower = expr.toLowerCase();
  const key = /[一二三四五六日天]$/.test(expr) ? expr.slice(-1) : (/(mon|tue|wed|thu|fri|sat|sun)[a-z]*day$/.exec(lower)?.[1] ?? '');
  const target = WEEKDAY_INDEX[key];
  if (target === undefined) return undefined;
  const mondayOffset = (base.getUTCDay() + 6) % 7;
  const inWeek = ((target + 6) % 7) - mondayOffset;
  if (/^(?:next|下)/.test(lower)) return shift(base, inWeek + 7);
  if (/^(?:last|上)/.test(lower)) return shift(base, inWeek - 7);
  if (/^(?:this|这|本)/.test(lower)) return shift(base, inWeek);
  if (past && inWeek > 0) return shift(base, inWeek - 7);
  if (!past && inWeek < 0) return shift(base, inWeek + 7);
  return shift(base, inWeek);
}

const DAYS_PER: Record<string, number> = { days: 1, weeks: 7, months: 30, years: 365 };

function relativeDaysEn(lower: string): number | undefined {
  if (lower === 'the day before yesterday') return -2;
  if (lower === 'the day after tomorrow') return 2;
  if (lower === 'yesterday' || lower === 'last night') return -1;
  if (lower === 'today' || lower === 'tonight' || lower.startsWith('this ')) return 0;
  if (lower === 'tomorrow') return 1;
  const ago = /^(\d+|two|three|four|five|a few|a couple of) (days|weeks|months|years) (ago|later)$/.exec(lower);
  if (ago) {
    const n = Number(ago[1]) || (EN_WORD_NUM[ago[1] as string] ?? 0);
    // Months and years as days: close enough to order moments, which is what they are used for.
    return n * (DAYS_PER[ago[2] as string] ?? 1) * (ago[3] === 'ago' ? -1 : 1);
  }
  return undefined;
}

// Relative to the message's own date; 第二天/次日 are relative to the story's day, which the TIME
// extractor supplies as the anchor when it knows it.
const RELATIVE_CN: Record<string, number> = { 大前天: -3, 前天: -2, 昨天: -1, 今天: 0, 当天: 0, 明天: 1, 后天: 2, 大后天: 3, 第二天: 1, 次日: 1, 第三天: 2 };

/** Adverbs of frequency: the clause tells what is done again and again (a habit), not something that happens once. */
export const HABIT = /\b(?:usually|always|often|sometimes|normally|generally|every|each|used to)\b|通常|经常|总是|一般|平时|有时|每天|每周|每个?月|每年|每次/i;

/** "Two years ago", "three months later": a date only roughly (months and years counted as days), to order events by; no moment on the calendar. */
export function isRoughSpan(expression: string): boolean {
  return /\b(?:months|years) (?:ago|later)$/i.test(expression);
}

/** Whether an expression is relative to the previous moment of a story rather than to the speaker's now. */
export function isStoryRelative(expression: string): boolean {
  return /^(?:第二天|次日|第三天|当天|the (?:next|following) (?:day|morning|afternoon|evening))$/i.test(expression);
}

/** Resolves a story-relative expression against the previous moment's date. */
export function resolveStoryRelative(expression: string, previousIso: string): string | undefined {
  const base = anchorDate(previousIso);
  if (!base) return undefined;
  if (/^(?:第二天|次日|the (?:next|following) (?:day|morning|afternoon|evening))$/i.test(expression)) return shift(base, 1);
  if (expression === '第三天') return shift(base, 2);
  if (expression === '当天') return shift(base, 0);
  return undefined;
}

/** `HH:mm` of a clock expression, or undefined. */
function clockOf(expr: string): string | undefined {
  const lower = expr.toLowerCase().replace(/^at\s+/, '');
  if (lower === 'noon') return '12:00';
  if (lower === 'midnight') return '00:00';
  const en = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(lower);
  if (en && (en[2] || en[3])) {
    let hour = Number(en[1]);
    if (en[3]?.startsWith('p') && hour < 12) hour += 12;
    if (en[3]?.startsWith('a') && hour === 12) hour = 0;
    return `${pad(hour)}:${en[2] ?? '00'}`;
  }
  const cn = new RegExp(String.raw`^(${DAYPART_CN})?(\d{1,2}|${CN_NUM}{1,3})[点時时](半|(\d{1,2}|${CN_NUM}{1,3})分)?$`, 'u').exec(expr);
  if (cn) {
    let hour = cnNumber(cn[2] as string) ?? 0;
    if (cn[1] && /下午|晚上|傍晚|今晚|昨晚|明晚/.test(cn[1]) && hour < 12) hour += 12;
    const minutes = cn[3] === '半' ? 30 : cn[4] ? (cnNumber(cn[4]) ?? 0) : 0;
    return `${pad(hour)}:${pad(minutes)}`;
  }
  return undefined;
}

const CN_DIGITS: Record<string, number> = { 零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9 };

/** 8, 十二, 二十三 → numbers (up to 99). */
export function cnNumber(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '十') return 10;
  const m = /^([一二两三四五六七八九])?十([一二三四五六七八九])?$/.exec(text);
  if (m) return (m[1] ? (CN_DIGITS[m[1]] ?? 1) : 1) * 10 + (m[2] ? (CN_DIGITS[m[2]] ?? 0) : 0);
  return text.length === 1 ? CN_DIGITS[text] : undefined;
}

function anchorDate(iso: string): Date | undefined {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function shift(base: Date, days: number): string {
  const d = new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate() + days));
  return d.toISOString().slice(0, 10);
}

function isoDate(year: number, month: number, day: number): string {
  return `${year}-${pad(month)}-${pad(day)}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Comparable milliseconds of an ISO date or date-time, or undefined. */
export function isoMillis(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const date = anchorDate(iso.length === 16 ? `${iso}:00Z` : iso);
  return date?.getTime();
}

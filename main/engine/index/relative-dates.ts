/**
 * Relative dates in a message, resolved against the day it was said (its timestamp, else its
 * session's start): "yesterday", "on Tuesday", "last week", "three days ago", 昨天, 上周三. A
 * message record carries them (message-record.ts), so "First run was on Tuesday" said on
 * 2024-03-24 reads "(Tuesday = 2024-03-19)": the hit answers "when" by itself, and a question
 * naming that date matches it.
 *
 * A bare weekday is the last one before the day in a message about the past, the next one after
 * it in a message about the future ("will", "'ll", "going to", "next", "tomorrow", 要, 会, 打算).
 * Only what is unambiguous enough to state is resolved; anything else is left alone.
 *
 * @example
 * resolveRelativeDates('First run was on Tuesday. Did another 4 yesterday.', '2024-03-24')
 * // ['Tuesday = 2024-03-19', 'yesterday = 2024-03-23']
 */
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const ZH_WEEKDAYS = '日一二三四五六';
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

const FUTURE = /\b(?:will|won't|going to|gonna|next|tomorrow|plan(?:ning)? to|shall)\b|'ll\b|要|会|打算|准备/i;

function parseDay(day: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
}

function iso(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}

/** The `weekday` (0 = Sunday) before `from` (direction -1) or after it (+1), never `from` itself. */
function nearestWeekday(from: Date, weekday: number, direction: 1 | -1): Date {
  let date = addDays(from, direction);
  while (date.getUTCDay() !== weekday) date = addDays(date, direction);
  return date;
}

/** Monday of the week holding `date`. */
function weekStart(date: Date): Date {
  return addDays(date, -((date.getUTCDay() + 6) % 7));
}

/** `phrase = YYYY-MM-DD` (or a week's range) for each relative date in `text`, in order, each once. */
export function resolveRelativeDates(text: string, day: string): string[] {
  const said = parseDay(day);
  if (!said) return [];
  const future = FUTURE.test(text);
  const found: { at: number; note: string }[] = [];
  const note = (at: number, phrase: string, value: string) => found.push({ at, note: `${phrase} = ${value}` });
  const week = (date: Date) => `week of ${iso(weekStart(date))}`;

  for (const m of text.matchAll(/\b(yesterday|last night|tomorrow|the day before yesterday|the day after tomorrow)\b/gi)) {
    const phrase = (m[1] as string).toLowerCase();
    const offset = { yesterday: -1, 'last night': -1, tomorrow: 1, 'the day before yesterday': -2, 'the day after tomorrow': 2 }[phrase] as number;
    note(m.index, phrase, iso(addDays(said, offset)));
  }
  for (const m of text.matchAll(new RegExp(`\\b(?:(last|this|next|on)\\s+)?(${WEEKDAYS.join('|')})\\b`, 'gi'))) {
    const which = (m[1] ?? '').toLowerCase();
    const weekday = WEEKDAYS.indexOf((m[2] as string).toLowerCase());
    const direction: 1 | -1 = which === 'next' || (which !== 'last' && future) ? 1 : -1;
    const name = (m[2] as string).charAt(0).toUpperCase() + (m[2] as string).slice(1).toLowerCase();
    note(m.index, which === 'last' || which === 'next' ? `${which} ${name}` : name, iso(nearestWeekday(said, weekday, direction)));
  }
  for (const m of text.matchAll(/\b(last|next)\s+(week|weekend|month|year)\b/gi)) {
    const sign = (m[1] as string).toLowerCase() === 'last' ? -1 : 1;
    const unit = (m[2] as string).toLowerCase();
    const phrase = `${(m[1] as string).toLowerCase()} ${unit}`;
    if (unit === 'week') note(m.index, phrase, week(addDays(said, 7 * sign)));
    else if (unit === 'weekend') note(m.index, phrase, iso(nearestWeekday(said, 6, sign as 1 | -1)));
    else if (unit === 'month') note(m.index, phrase, iso(new Date(Date.UTC(said.getUTCFullYear(), said.getUTCMonth() + sign, 1))).slice(0, 7));
    else note(m.index, phrase, String(said.getUTCFullYear() + sign));
  }
  for (const m of text.matchAll(/\b(\d{1,2}|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(days?|weeks?)\s+ago\b/gi)) {
    const n = NUMBERS[(m[1] as string).toLowerCase()] ?? Number(m[1]);
    const days = (m[2] as string).toLowerCase().startsWith('week') ? n * 7 : n;
    const date = addDays(said, -days);
    note(m.index, (m[0] as string).toLowerCase(), days >= 7 ? week(date) : iso(date));
  }
  for (const m of text.matchAll(/大前天|前天|昨天|明天|后天/g)) {
    note(m.index, m[0], iso(addDays(said, { 大前天: -3, 前天: -2, 昨天: -1, 明天: 1, 后天: 2 }[m[0]] as number)));
  }
  for (const m of text.matchAll(new RegExp(`(上|下|这|本)?(?:周|星期|礼拜)([${ZH_WEEKDAYS}天])`, 'g'))) {
    const weekday = m[2] === '天' ? 0 : ZH_WEEKDAYS.indexOf(m[2] as string);
    const start = weekStart(said);
    // 周日 closes the week that starts on Monday.
    const inWeek = (monday: Date) => addDays(monday, weekday === 0 ? 6 : weekday - 1);
    const date = m[1] === '上' ? inWeek(addDays(start, -7)) : m[1] === '下' ? inWeek(addDays(start, 7)) : m[1] ? inWeek(start) : nearestWeekday(said, weekday, future ? 1 : -1);
    note(m.index, m[0], iso(date));
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.note)
    .filter((n) => !seen.has(n) && seen.add(n));
}

/**
 * Numbers, sizes, durations, moments and prices as people read them, alike in the CLI and the
 * app's views. `locale` is the app's language ('en' or 'zh'); the CLI prints English.
 */

/** "1.5 MB": binary multiples, one decimal under ten. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  do {
    value /= 1024;
    unit += 1;
  } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

// One formatter per language: `toLocaleString(locale)` builds a new one on every call, which
// showed in profiles of views that redraw counts ten times a second.
const countFormats = new Map<string, Intl.NumberFormat>();

/** "12,345": grouped digits. */
export function formatCount(n: number, locale = 'en'): string {
  const tag = locale === 'zh' ? 'zh-CN' : 'en-US';
  let format = countFormats.get(tag);
  if (!format) {
    format = new Intl.NumberFormat(tag);
    countFormats.set(tag, format);
  }
  return format.format(n);
}

/** "340 ms" (whole milliseconds) under a second, "2.5 s" from there. */
export function formatMs(ms: number): string {
  const whole = Math.round(ms);
  return whole < 1000 ? `${whole} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const whenFormats = new Map<string, Intl.DateTimeFormat>();

/** A moment (ISO string) as a short local date and time; the string itself when it is not a date. */
export function formatWhen(iso: string, locale = 'en'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const tag = locale === 'zh' ? 'zh-CN' : 'en-US';
  let format = whenFormats.get(tag);
  if (!format) {
    format = new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' });
    whenFormats.set(tag, format);
  }
  return format.format(date);
}

/** US dollars at list price: four decimals under a dollar, so small runs do not read as $0.00. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** `text` with its `{name}` placeholders filled from `params` (a name without a value stays as written). */
export function fillPlaceholders(text: string, params?: Record<string, string | number>): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** Puts a message of a table into words by its key, its `{name}` placeholders filled: how a cause is said in a language. */
export type Say<K extends string> = (key: K, params?: Record<string, string | number>) => string;

/** The `Say` over one language's texts (the CLI's and the history file's: the English table). */
export function sayFrom<K extends string>(texts: Readonly<Record<K, string>>): Say<K> {
  return (key, params) => fillPlaceholders(texts[key], params);
}

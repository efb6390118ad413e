/** Numbers, sizes and durations as the views print them. */
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

export function formatCount(n: number, locale = 'en'): string {
  const tag = locale === 'zh' ? 'zh-CN' : 'en-US';
  let format = countFormats.get(tag);
  if (!format) {
    format = new Intl.NumberFormat(tag);
    countFormats.set(tag, format);
  }
  return format.format(n);
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

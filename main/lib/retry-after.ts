/**
 * Reads how long a server asks us to wait: `retry-after-ms` (OpenAI's milliseconds header),
 * then `Retry-After` as seconds or as an HTTP date (RFC 9110 section 10.2.3).
 *
 * @example
 * retryAfterMs(new Headers({ 'retry-after': '2' })); // 2000
 * retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), Date.parse('2015-10-21T07:27:58Z')); // 2000
 */

export interface HeaderReader {
  get(name: string): string | null;
}

/** Milliseconds to wait, or undefined when the server did not say (or said something unreadable). */
export function retryAfterMs(headers: HeaderReader | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const at = Date.parse(raw);
  // A date in the past means "now"; an unreadable value means the server did not say.
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

import { createHash } from 'node:crypto';

/** sha256 of text (UTF-8) or bytes, hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Why an LLM call failed, as a person diagnoses it: the HTTP status and the server's own
 * message, a timeout, an answer that was not JSON or not the asked shape (with how it began).
 * `group` is short and the same for every call that failed alike, so a run's fallbacks add up
 * ("27 × HTTP 500 'injected fault'"); `detail` adds what differs per call (the answer's first
 * 200 characters), for the LLM monitor's recent calls.
 *
 * @example
 * failureCause(new CairnError('LLM_REQUEST_FAILED', '…', { details: { status: 500, serverMessage: 'injected fault' } }));
 * // { group: "HTTP 500 'injected fault'", detail: "HTTP 500 'injected fault'" }
 */
import { CairnError, errorMessage } from '../../../shared/errors.js';

export interface FailureCause {
  group: string;
  detail: string;
}

/** Most characters of a server's message kept in a cause. */
const SERVER_MESSAGE_CHARS = 120;

export function failureCause(error: unknown): FailureCause {
  if (!CairnError.is(error)) return same(clip(errorMessage(error), SERVER_MESSAGE_CHARS));
  const details = error.details ?? {};
  const status = details.status;
  if (typeof status === 'number') {
    const message = typeof details.serverMessage === 'string' ? details.serverMessage : '';
    return same(message ? `HTTP ${status} '${clip(message, SERVER_MESSAGE_CHARS)}'` : `HTTP ${status}`);
  }
  const answer = typeof details.excerpt === 'string' ? ` (the answer began: ${JSON.stringify(details.excerpt.slice(0, 200))})` : '';
  switch (error.code) {
    case 'TIMEOUT':
      return same(typeof details.timeoutMs === 'number' ? `timeout after ${details.timeoutMs} ms` : 'timeout');
    case 'LLM_BAD_RESPONSE': {
      if (typeof details.refusal === 'string') return { group: 'the model refused', detail: `the model refused: ${clip(details.refusal, SERVER_MESSAGE_CHARS)}` };
      if (/not JSON/.test(error.message)) return { group: 'invalid JSON', detail: `invalid JSON${answer}` };
      if (/does not match the schema/.test(error.message)) {
        const issues = Array.isArray(details.issues) ? `: ${details.issues.join('; ')}` : '';
        return { group: 'JSON of the wrong shape', detail: `JSON of the wrong shape${issues}${answer}` };
      }
      return { group: 'a malformed answer', detail: clip(afterModel(error.message), SERVER_MESSAGE_CHARS) };
    }
    case 'LLM_CIRCUIT_OPEN':
      if (typeof details.permanent === 'string') return same(`circuit open: ${details.permanent}`);
      return same(typeof details.lastCause === 'string' ? `circuit open after repeated ${details.lastCause}` : 'circuit open after repeated failures');
    case 'LLM_BUDGET_EXHAUSTED':
      return same('token budget exhausted');
    case 'LLM_REQUEST_FAILED':
      return same(/could not reach the server/.test(error.message) ? 'could not reach the server' : clip(afterModel(error.message), SERVER_MESSAGE_CHARS));
    default:
      return same(`${error.code}: ${clip(afterModel(error.message), SERVER_MESSAGE_CHARS)}`);
  }
}

function same(text: string): FailureCause {
  return { group: text, detail: text };
}

/** The adapter's messages start with "provider model: "; the cause is what follows. */
function afterModel(message: string): string {
  return message.replace(/^[\w.-]+ [^:]+: /, '').replace(/ \(gave up after \d+ attempts\)$/, '');
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Why an LLM call failed, as a person diagnoses it (shared/llm-cause.ts): the HTTP status and
 * the server's own message, a timeout, an answer that was not JSON or not the asked shape (with
 * how it began), an open circuit and the failure that opened it. Read from the error's code and
 * details, never from its English message. `groupOf` (shared) drops what differs per call, so a
 * run's fallbacks add up; the whole cause goes to the LLM monitor's recent calls.
 *
 * @example
 * failureCause(new CairnError('LLM_REQUEST_FAILED', '…', { details: { status: 500, serverMessage: 'injected fault' } }));
 * // { code: 'http_status', status: 500, message: 'injected fault' }
 */
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { LlmCause } from '../../../shared/llm-cause.js';

/** Most characters of a server's message kept in a cause. */
const SERVER_MESSAGE_CHARS = 120;

export function failureCause(error: unknown): LlmCause {
  if (!CairnError.is(error)) return { code: 'other', message: clip(errorMessage(error), SERVER_MESSAGE_CHARS) };
  const details = error.details ?? {};
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? clip(value, SERVER_MESSAGE_CHARS) : undefined);
  if (typeof details.status === 'number' && error.code !== 'LLM_CIRCUIT_OPEN') return defined({ code: 'http_status', status: details.status, message: text(details.serverMessage) });
  const answer = typeof details.excerpt === 'string' ? details.excerpt.slice(0, 200) : undefined;
  switch (error.code) {
    case 'TIMEOUT':
      return defined({ code: 'timeout', timeout_ms: typeof details.timeoutMs === 'number' ? details.timeoutMs : undefined });
    case 'LLM_BAD_RESPONSE':
      // An answer the engine refused itself (memory/llm-run.ts `unusableAnswer`) says why in its own words.
      if (details.unusable === true) return { code: 'unusable', message: clip(error.message, SERVER_MESSAGE_CHARS) };
      if (typeof details.refusal === 'string') return defined({ code: 'refused', message: text(details.refusal) });
      if (details.problem === 'invalid_json') return defined({ code: 'invalid_json', answer });
      if (details.problem === 'schema') return defined({ code: 'schema', issues: Array.isArray(details.issues) ? details.issues.map(String).slice(0, 10) : undefined, answer });
      return defined({ code: 'malformed', message: text(afterModel(error.message)) });
    case 'LLM_CIRCUIT_OPEN': {
      const after = isCause(details.lastCause) ? details.lastCause : undefined;
      return defined({ code: 'circuit_open', after, permanent: details.permanent !== undefined ? true : undefined });
    }
    case 'LLM_BUDGET_EXHAUSTED':
      return { code: 'budget' };
    case 'LLM_REQUEST_FAILED':
      return details.problem === 'network' ? { code: 'network' } : defined({ code: 'other', message: text(afterModel(error.message)) });
    default:
      return { code: 'other', message: `${error.code}: ${clip(afterModel(error.message), SERVER_MESSAGE_CHARS)}` };
  }
}

function isCause(value: unknown): value is LlmCause {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'string';
}

/** The cause without the fields left unset, so it compares and prints cleanly. */
function defined(cause: LlmCause): LlmCause {
  return Object.fromEntries(Object.entries(cause).filter(([, v]) => v !== undefined)) as unknown as LlmCause;
}

/** The adapter's messages start with "provider model: "; the cause is what follows. */
function afterModel(message: string): string {
  return message.replace(/^[\w.-]+ [^:]+: /, '').replace(/ \(gave up after \d+ attempts\)$/, '');
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * Why an LLM call failed or fell back, as a structure: a code and its parameters (the HTTP
 * status and the server's message, the answer's first 200 characters, the schema's issues...).
 * The engine makes it (main/engine/llm/failure-cause.ts); the CLI says it in English and the
 * page in its own language, both through `describeCause` over the texts below (the page reads
 * them as its i18n keys `cause.*`, renderer/i18n/en.ts and zh.ts). What the server or the model
 * said stays as they said it.
 *
 * A cause stored before causes were structured is a string: it is shown as it is.
 *
 * @example
 * describeCause({ code: 'http_status', status: 500, message: 'injected fault' }, englishCause); // "HTTP 500 'injected fault'"
 */
import { z } from 'zod';
import { sayFrom, type Say } from './format.js';
import type { Locale } from './locale.js';

export const CAUSE_CODES = ['http_status', 'timeout', 'invalid_json', 'schema', 'refused', 'malformed', 'circuit_open', 'budget', 'network', 'unusable', 'other'] as const;
export type CauseCode = (typeof CAUSE_CODES)[number];

export interface LlmCause {
  code: CauseCode;
  /** http_status: the status; circuit_open for good (permanent): the status that stopped it. */
  status?: number | undefined;
  /** What the server said (http_status), the model's refusal, the engine's own reason (unusable, malformed, other). */
  message?: string | undefined;
  /** How the answer began (invalid_json, schema). */
  answer?: string | undefined;
  /** schema: what did not match. */
  issues?: string[] | undefined;
  timeout_ms?: number | undefined;
  /** circuit_open: the failure that opened it (the last one counted). */
  after?: LlmCause | undefined;
  /** circuit_open: stopped for the whole run (a bad key, a missing model, no quota), not a cool-down. */
  permanent?: boolean | undefined;
}

export const LlmCause: z.ZodType<LlmCause> = z.lazy(() =>
  z.object({
    code: z.enum(CAUSE_CODES),
    status: z.number().int().optional(),
    message: z.string().max(600).optional(),
    answer: z.string().max(400).optional(),
    issues: z.array(z.string().max(300)).max(10).optional(),
    timeout_ms: z.number().optional(),
    after: LlmCause.optional(),
    permanent: z.boolean().optional(),
  }),
);

/** A cause as carried and stored: structured, or a string stored before causes were structured. */
export const StoredCause = z.union([LlmCause, z.string()]);
export type StoredCause = LlmCause | string;

/** The causes of a run's fallbacks with how many fell back alike. */
export interface CauseCount {
  cause: StoredCause;
  count: number;
}

/** Reads the list, and the `{ "cause text": count }` record stored before causes were structured. */
export const CauseCounts = z.preprocess(
  (value) => (value && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value).map(([cause, count]) => ({ cause, count })) : value),
  z.array(z.object({ cause: StoredCause, count: z.number().int() })),
);

/**
 * The cause without what differs per call (the answer's excerpt, the schema's issues, the
 * refusal's words), so a run's fallbacks add up ("27 × HTTP 500 'injected fault'").
 */
export function groupOf(cause: LlmCause): LlmCause {
  const { answer: _answer, issues: _issues, ...rest } = cause;
  if (rest.code === 'refused') delete rest.message;
  if (rest.after) rest.after = groupOf(rest.after);
  return rest;
}

/** One key per group, the same for causes alike whatever order their fields were set in. */
export function causeKey(cause: StoredCause): string {
  if (typeof cause === 'string') return `text:${cause}`;
  const c = groupOf(cause);
  return [c.code, c.status ?? '', c.message ?? '', c.timeout_ms ?? '', c.permanent ? 'permanent' : '', c.after ? `(${causeKey(c.after)})` : ''].join('|');
}

/** The texts a cause is said with, per language; `{name}` placeholders. */
export const CAUSE_MESSAGES = {
  en: {
    'cause.httpStatus': "HTTP {status} '{message}'",
    'cause.httpStatusBare': 'HTTP {status}',
    'cause.invalidJson': 'invalid JSON',
    'cause.wrongShape': 'JSON of the wrong shape',
    'cause.refused': 'the model refused',
    'cause.timeoutAfter': 'timeout after {ms} ms',
    'cause.timeout': 'timeout',
    'cause.circuitRepeatedFailures': 'circuit open after repeated failures',
    'cause.circuitAfter': 'circuit open after repeated {cause}',
    'cause.circuitAuth': 'circuit open: authentication failed ({status})',
    'cause.circuitModel': 'circuit open: model not found ({status})',
    'cause.circuitQuota': 'circuit open: the account is out of quota ({status})',
    'cause.circuitPermanent': 'circuit open: {cause}',
    'cause.budget': 'token budget exhausted',
    'cause.unreachable': 'could not reach the server',
    'cause.malformed': 'a malformed answer',
    'cause.unusable': 'an answer not used: {message}',
    'cause.withRest': '{head}: {rest}',
    'cause.answerBegan': ' (the answer began: {answer})',
  },
  zh: {
    'cause.httpStatus': "HTTP {status} '{message}'",
    'cause.httpStatusBare': 'HTTP {status}',
    'cause.invalidJson': 'JSON 无效',
    'cause.wrongShape': 'JSON 结构不符',
    'cause.refused': '模型拒绝回答',
    'cause.timeoutAfter': '{ms} 毫秒后超时',
    'cause.timeout': '超时',
    'cause.circuitRepeatedFailures': '多次失败后已熔断',
    'cause.circuitAfter': '多次{cause}后已熔断',
    'cause.circuitAuth': '已熔断：认证失败（{status}）',
    'cause.circuitModel': '已熔断：找不到模型（{status}）',
    'cause.circuitQuota': '已熔断：账户额度已用完（{status}）',
    'cause.circuitPermanent': '已熔断：{cause}',
    'cause.budget': 'token 预算已用完',
    'cause.unreachable': '无法连接服务器',
    'cause.malformed': '回答格式有误',
    'cause.unusable': '未采用的回答：{message}',
    'cause.withRest': '{head}：{rest}',
    'cause.answerBegan': '（回答开头：{answer}）',
  },
} as const satisfies Record<Locale, Record<string, string>>;

export type CauseMessageKey = keyof (typeof CAUSE_MESSAGES)['en'];
export type SayCause = Say<CauseMessageKey>;

/** The CLI's (and the logs') wording: English. */
export const englishCause: SayCause = sayFrom(CAUSE_MESSAGES.en);

/** A cause in the words `say` gives (a string stored before causes were structured: as it is). */
export function describeCause(cause: StoredCause, say: SayCause): string {
  if (typeof cause === 'string') return cause;
  const answer = cause.answer !== undefined ? say('cause.answerBegan', { answer: JSON.stringify(cause.answer) }) : '';
  const rest = (head: string, text: string | undefined) => (text ? say('cause.withRest', { head, rest: text }) : head);
  switch (cause.code) {
    case 'http_status':
      return cause.message ? say('cause.httpStatus', { status: cause.status ?? '?', message: cause.message }) : say('cause.httpStatusBare', { status: cause.status ?? '?' });
    case 'timeout':
      return cause.timeout_ms !== undefined ? say('cause.timeoutAfter', { ms: cause.timeout_ms }) : say('cause.timeout');
    case 'invalid_json':
      return say('cause.invalidJson') + answer;
    case 'schema':
      return rest(say('cause.wrongShape'), cause.issues?.join('; ')) + answer;
    case 'refused':
      return rest(say('cause.refused'), cause.message);
    case 'malformed':
      return cause.message ?? say('cause.malformed');
    case 'circuit_open':
      return circuitOpen(cause, say);
    case 'budget':
      return say('cause.budget');
    case 'network':
      return say('cause.unreachable');
    case 'unusable':
      return say('cause.unusable', { message: cause.message ?? '' });
    default:
      return cause.message ?? cause.code;
  }
}

function circuitOpen(cause: LlmCause, say: SayCause): string {
  const after = cause.after;
  if (cause.permanent) {
    const status = cause.status ?? after?.status;
    if (status === 401 || status === 403) return say('cause.circuitAuth', { status });
    if (status === 404) return say('cause.circuitModel', { status });
    if (status === 429) return say('cause.circuitQuota', { status });
    return after ? say('cause.circuitPermanent', { cause: describeCause(after, say) }) : say('cause.circuitRepeatedFailures');
  }
  return after ? say('cause.circuitAfter', { cause: describeCause(after, say) }) : say('cause.circuitRepeatedFailures');
}

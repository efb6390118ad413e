/**
 * Every cause the engine makes (main/engine/llm/failure-cause.ts, structured: shared/llm-cause.ts)
 * is said in Chinese on a Chinese page (renderer/i18n/causes.ts) and in English on an English
 * one as the CLI says it, from the structure, keeping what the server or the model said as they
 * said it. A cause stored as a string before causes were structured is shown as it is.
 */
import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { formatCauses } from '../../shared/fallback-causes.js';
import { CauseCounts, describeCause, englishCause, groupOf } from '../../shared/llm-cause.js';
import { failureCause } from '../../main/engine/llm/failure-cause.js';
import { localizeCause } from '../../renderer/i18n/causes.js';

const errors: Array<[unknown, string, string, string]> = [
  [new CairnError('TIMEOUT', 'p m: no answer', { details: { timeoutMs: 5000 } }), '5000 毫秒后超时', '5000 毫秒后超时', 'timeout after 5000 ms'],
  [new CairnError('TIMEOUT', 'p m: no answer'), '超时', '超时', 'timeout'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: x', { details: { problem: 'invalid_json', excerpt: 'Sure! Here' } }), 'JSON 无效', 'JSON 无效（回答开头："Sure! Here"）', 'invalid JSON (the answer began: "Sure! Here")'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: x', { details: { problem: 'schema', issues: ['abstract: Required'], excerpt: '{"x":1}' } }), 'JSON 结构不符', 'JSON 结构不符：abstract: Required（回答开头："{\\"x\\":1}"）', 'JSON of the wrong shape: abstract: Required (the answer began: "{\\"x\\":1}")'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: refused', { details: { refusal: 'I cannot help' } }), '模型拒绝回答', '模型拒绝回答：I cannot help', 'the model refused: I cannot help'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: no label for a topic', { details: { unusable: true } }), '未采用的回答：p m: no label for a topic', '未采用的回答：p m: no label for a topic', 'an answer not used: p m: no label for a topic'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { lastCause: { code: 'http_status', status: 503, message: 'overloaded' } } }), "多次HTTP 503 'overloaded'后已熔断", "多次HTTP 503 'overloaded'后已熔断", "circuit open after repeated HTTP 503 'overloaded'"],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { lastCause: { code: 'timeout', timeout_ms: 60000 } } }), '多次60000 毫秒后超时后已熔断', '多次60000 毫秒后超时后已熔断', 'circuit open after repeated timeout after 60000 ms'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open'), '多次失败后已熔断', '多次失败后已熔断', 'circuit open after repeated failures'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { permanent: 'x', lastCause: { code: 'http_status', status: 401 } } }), '已熔断：认证失败（401）', '已熔断：认证失败（401）', 'circuit open: authentication failed (401)'],
  [new CairnError('LLM_BUDGET_EXHAUSTED', 'spent'), 'token 预算已用完', 'token 预算已用完', 'token budget exhausted'],
  [new CairnError('LLM_REQUEST_FAILED', 'p m: anything', { details: { problem: 'network' } }), '无法连接服务器', '无法连接服务器', 'could not reach the server'],
  [new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 500', { details: { status: 500, serverMessage: 'injected fault' } }), "HTTP 500 'injected fault'", "HTTP 500 'injected fault'", "HTTP 500 'injected fault'"],
];

describe('an LLM failure cause on the page', () => {
  it('is said in Chinese from its structure, group and detail alike, with the server’s and the model’s words kept', () => {
    for (const [error, group, detail] of errors) {
      const cause = failureCause(error);
      expect(localizeCause(groupOf(cause), 'zh')).toBe(group);
      expect(localizeCause(cause, 'zh')).toBe(detail);
    }
  });

  it('is the CLI’s English on an English page', () => {
    for (const [error, , , english] of errors) {
      const cause = failureCause(error);
      expect(describeCause(cause, englishCause)).toBe(english);
      expect(localizeCause(cause, 'en')).toBe(english);
    }
  });

  it('shows a cause stored as text before causes were structured as it is, and reads the old { text: count } record', () => {
    expect(localizeCause("HTTP 500 'injected fault'", 'zh')).toBe("HTTP 500 'injected fault'");
    const old = CauseCounts.parse({ "HTTP 500 'injected fault'": 27, 'invalid JSON': 2 });
    expect(formatCauses(old)).toBe("27 × HTTP 500 'injected fault', 2 × invalid JSON");
  });
});

/**
 * Every cause the engine words (main/engine/llm/failure-cause.ts) is said in Chinese on a Chinese
 * page (renderer/i18n/causes.ts), keeping what the server or the model said as they said it; on
 * an English page it is the engine's text.
 */
import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors.js';
import { failureCause } from '../../main/engine/llm/failure-cause.js';
import { localizeCause } from '../../renderer/i18n/causes.js';

const errors: Array<[unknown, string, string]> = [
  [new CairnError('TIMEOUT', 'p m: no answer', { details: { timeoutMs: 5000 } }), '5000 毫秒后超时', '5000 毫秒后超时'],
  [new CairnError('TIMEOUT', 'p m: no answer'), '超时', '超时'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: the answer is not JSON', { details: { excerpt: 'Sure! Here' } }), 'JSON 无效', 'JSON 无效（回答开头："Sure! Here"）'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: the answer does not match the schema', { details: { issues: ['abstract: Required'], excerpt: '{"x":1}' } }), 'JSON 结构不符', 'JSON 结构不符: abstract: Required（回答开头："{\\"x\\":1}"）'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: refused', { details: { refusal: 'I cannot help' } }), '模型拒绝回答', '模型拒绝回答: I cannot help'],
  [new CairnError('LLM_BAD_RESPONSE', 'p m: something odd'), '回答格式有误', 'something odd'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { lastCause: "HTTP 503 'overloaded'" } }), "多次HTTP 503 'overloaded'后已熔断", "多次HTTP 503 'overloaded'后已熔断"],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { lastCause: 'timeout after 60000 ms' } }), '多次60000 毫秒后超时后已熔断', '多次60000 毫秒后超时后已熔断'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open'), '多次失败后已熔断', '多次失败后已熔断'],
  [new CairnError('LLM_CIRCUIT_OPEN', 'open', { details: { permanent: 'HTTP 401' } }), '已熔断：HTTP 401', '已熔断：HTTP 401'],
  [new CairnError('LLM_BUDGET_EXHAUSTED', 'spent'), 'token 预算已用完', 'token 预算已用完'],
  [new CairnError('LLM_REQUEST_FAILED', 'p m: could not reach the server (ECONNREFUSED)'), '无法连接服务器', '无法连接服务器'],
  [new CairnError('LLM_REQUEST_FAILED', 'p m: HTTP 500', { details: { status: 500, serverMessage: 'injected fault' } }), "HTTP 500 'injected fault'", "HTTP 500 'injected fault'"],
];

describe('an LLM failure cause on the page', () => {
  it('is said in Chinese, group and detail alike, with the server’s and the model’s words kept', () => {
    for (const [error, group, detail] of errors) {
      const cause = failureCause(error);
      expect(localizeCause(cause.group, 'zh')).toBe(group);
      expect(localizeCause(cause.detail, 'zh')).toBe(detail);
    }
  });

  it('is the engine’s own text in English, and an unknown cause is shown as it came', () => {
    for (const [error] of errors) {
      const cause = failureCause(error);
      expect(localizeCause(cause.group, 'en')).toBe(cause.group);
      expect(localizeCause(cause.detail, 'en')).toBe(cause.detail);
    }
    expect(localizeCause('LLM_UNKNOWN: odd', 'zh')).toBe('LLM_UNKNOWN: odd');
  });
});

import { describe, expect, it } from 'vitest';
import { repairJson } from './json-repair.js';

function value(text: string, expect: 'object' | 'array' | 'any' = 'any') {
  const result = repairJson(text, { expect });
  if (!result.ok) throw new Error(`expected a repair of ${JSON.stringify(text)}: ${result.error}`);
  return result;
}

describe('repairJson', () => {
  it('passes strict JSON through untouched', () => {
    expect(value('{"a": 1, "b": [true, null]}')).toEqual({ ok: true, value: { a: 1, b: [true, null] }, repaired: false, truncated: false });
  });

  it('strips code fences and prose around the JSON', () => {
    const r = value('Here is the summary you asked for:\n```json\n{"abstract": "Docs"}\n```\nLet me know if you need more.');
    expect(r.value).toEqual({ abstract: 'Docs' });
    expect(r.repaired).toBe(true);
    expect(value('Sure! {"a": 1} Hope that helps.').value).toEqual({ a: 1 });
  });

  it('fixes trailing commas, single quotes, unquoted keys and comments', () => {
    expect(value("{abstract: 'It\\'s fine', tags: ['a', 'b',], // note\n n: 2,}").value).toEqual({ abstract: "It's fine", tags: ['a', 'b'], n: 2 });
  });

  it('reads Python literals', () => {
    expect(value("{'ok': True, 'missing': None, 'bad': False}").value).toEqual({ ok: true, missing: null, bad: false });
  });

  it('closes truncated objects and arrays, keeping the partial string', () => {
    const r = value('{"abstract": "Summaries of the ops docs", "categories": ["ops", "runbo');
    expect(r.value).toEqual({ abstract: 'Summaries of the ops docs', categories: ['ops', 'runbo'] });
    expect(r.truncated).toBe(true);
    expect(value('{"a": {"b": [1, 2, {"c": tr').value).toEqual({ a: { b: [1, 2, { c: true }] } });
  });

  it('drops a key whose value was cut off', () => {
    expect(value('{"abstract": "x", "overview":').value).toEqual({ abstract: 'x' });
    expect(value('{"abstract": "x", "overv').value).toEqual({ abstract: 'x' });
  });

  it('keeps unescaped quotes inside a string when what follows is not structure', () => {
    expect(value('{"abstract": "He said "hi" to the team", "n": 1}').value).toEqual({ abstract: 'He said "hi" to the team', n: 1 });
  });

  it('tolerates a missing comma between members', () => {
    expect(value('{"a": 1\n"b": 2}').value).toEqual({ a: 1, b: 2 });
  });

  it('removes reasoning blocks before the answer', () => {
    expect(value('<think>The user wants {json}. Let me think.</think>\n{"a": "b"}', 'object').value).toEqual({ a: 'b' });
  });

  it('decodes JSON sent as a JSON string', () => {
    expect(value('"{\\"a\\": 1}"', 'object').value).toEqual({ a: 1 });
  });

  it('skips stray brackets in prose when an object is expected', () => {
    expect(value('As noted in [1], the answer is {"a": [2]}', 'object').value).toEqual({ a: [2] });
    expect(value('[{"a": 1}]', 'array').value).toEqual([{ a: 1 }]);
  });

  it('reports text that holds no JSON', () => {
    expect(repairJson('I cannot summarize this directory.')).toEqual({ ok: false, error: 'no JSON object or array found' });
    expect(repairJson('{"a": @@@}').ok).toBe(false);
  });

  it('keeps unicode and escapes', () => {
    expect(value("{'zh': '向量索引\\n第二行', 'e': '\\u00e9'}").value).toEqual({ zh: '向量索引\n第二行', e: 'é' });
  });
});

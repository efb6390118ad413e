import { describe, expect, it } from 'vitest';
import { en, type MessageKey } from './en';
import { zh } from './zh';
import { isMessageKey, labelOf, preferredLocale, translate } from './index';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the language tables', () => {
  it('give every Chinese text the placeholders of its English one, and no text is empty', () => {
    for (const key of Object.keys(en) as MessageKey[]) {
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
      expect(zh[key].trim(), key).not.toBe('');
    }
  });
});

describe('translate', () => {
  it('reads the chosen language and fills the placeholders it is given', () => {
    expect(translate('en', 'home.doneOf', { done: 3, total: 10 })).toBe('3 of 10');
    expect(translate('zh', 'error.code', { code: 'E_IO' })).toBe('错误 E_IO');
    expect(translate('en', 'nav.home')).toBe('Home');
    expect(translate('zh', 'nav.home')).toBe('首页');
  });

  it('leaves a placeholder it has no value for as written', () => {
    expect(translate('en', 'home.doneOf', { done: 3 })).toBe('3 of {total}');
  });
});

describe('preferredLocale', () => {
  it('takes the first language the browser prefers that the interface speaks, else English', () => {
    expect(preferredLocale(['fr-FR', 'zh-CN', 'en'])).toBe('zh');
    expect(preferredLocale(['EN-gb'])).toBe('en');
    expect(preferredLocale(['de', 'ja'])).toBe('en');
    expect(preferredLocale([])).toBe('en');
  });
});

describe('labelOf', () => {
  it('translates a value the engine names, and shows one it has no text for as is', () => {
    expect(isMessageKey('nav.home')).toBe(true);
    expect(isMessageKey('toString')).toBe(false);
    const t = (key: MessageKey) => translate('zh', key);
    expect(labelOf(t, 'nav', 'home')).toBe('首页');
    expect(labelOf(t, 'chainRole', 'hypothesis-from-an-llm')).toBe('hypothesis-from-an-llm');
  });
});

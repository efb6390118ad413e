/**
 * The interface text: one table per language (en.ts defines the keys, zh.ts is typed by them),
 * and the functions the views use to read it.
 */
import { en, type MessageKey, type Messages } from './en';
import { zh } from './zh';
import { LOCALES, type Locale } from '../../shared/locale';

export type { MessageKey } from './en';

export { LOCALES, type Locale } from '../../shared/locale';

const tables: Record<Locale, Messages> = { en, zh };

/** Whether a key built at run time (`chainRole.${role}`) names a message. */
export function isMessageKey(key: string): key is MessageKey {
  return Object.prototype.hasOwnProperty.call(en, key);
}

/**
 * The label for a value the engine names (a chain role, a link type), or the value itself when
 * the interface has no text for it (an LLM may name a role the rules never do).
 */
export function labelOf(translate: (key: MessageKey) => string, prefix: string, value: string): string {
  const key = `${prefix}.${value}`;
  return isMessageKey(key) ? translate(key) : value;
}

/** The text of `key` in `locale`, with its `{name}` placeholders filled from `params`. */
export function translate(locale: Locale, key: MessageKey, params?: Record<string, string | number>): string {
  const text = tables[locale][key] ?? en[key];
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The first supported language the browser prefers, else English. */
export function preferredLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const base = language.toLowerCase().split('-')[0];
    if ((LOCALES as readonly string[]).includes(base ?? '')) return base as Locale;
  }
  return 'en';
}

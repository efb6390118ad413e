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

/**
 * The text of `key` in `locale`, with its `{name}` placeholders filled from `params` and its
 * plural forms chosen: `{count, plural, one {# hit} other {# hits}}` (ICU's form, the categories
 * of Intl.PluralRules for the locale; `#` is the value as given, so a formatted "1,234" stays so).
 */
export function translate(locale: Locale, key: MessageKey, params?: Record<string, string | number>): string {
  const text = tables[locale][key] ?? en[key];
  if (!params) return text;
  return text
    .replace(PLURAL, (whole, name: string, forms: string) => (name in params ? pluralForm(locale, params[name] as string | number, forms) : whole))
    .replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other) \{[^{}]*\})+)\s*\}/g;
const rules = new Map<Locale, Intl.PluralRules>();

/** The form for `value` among `forms` (` one {…} other {…}`): an exact `=n` first, then its category, else `other`. */
function pluralForm(locale: Locale, value: string | number, forms: string): string {
  // A count may come formatted for display ("1,234"): its digits decide the form.
  const n = typeof value === 'number' ? value : Number(value.replace(/[^\d.-]/g, ''));
  const byName = new Map([...forms.matchAll(/(=\d+|\w+) \{([^{}]*)\}/g)].map((m) => [m[1] as string, m[2] as string]));
  let rule = rules.get(locale);
  if (!rule) rules.set(locale, (rule = new Intl.PluralRules(locale)));
  const form = byName.get(`=${n}`) ?? byName.get(rule.select(n)) ?? byName.get('other') ?? '';
  return form.replace(/#/g, String(value));
}

/** The first supported language the browser prefers, else English. */
export function preferredLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const base = language.toLowerCase().split('-')[0];
    if ((LOCALES as readonly string[]).includes(base ?? '')) return base as Locale;
  }
  return 'en';
}

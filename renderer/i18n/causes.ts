/**
 * An LLM failure's cause in the page's language, from its structure (shared/llm-cause.ts) and
 * the i18n tables' `cause.*` texts. What the server or the model said stays as they said it; a
 * cause stored before causes were structured (a string) is shown as it came.
 */
import type { StoredCause } from '../../shared/llm-cause';
import { describeCause } from '../../shared/llm-cause';
import { translate, type Locale } from './index';

export function localizeCause(cause: StoredCause, locale: Locale): string {
  return describeCause(cause, (key, params) => translate(locale, key, params));
}

/** The translate function for the language the user chose. */
import { useCallback } from 'react';
import { translate, type MessageKey } from './i18n';
import { useApp } from './stores/stores-context';

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function useT(): Translate {
  const locale = useApp((state) => state.locale);
  return useCallback((key, params) => translate(locale, key, params), [locale]);
}

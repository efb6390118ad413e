/** The languages of the interface: the page's text (renderer/i18n) and the desktop menu (main/app/menu-labels.ts). */
export const LOCALES = ['en', 'zh'] as const;
export type Locale = (typeof LOCALES)[number];

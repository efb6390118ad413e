/**
 * The application menu's own words, in each language of the page (shared/locale.ts). Electron
 * translates the items it builds from a role (Edit, Window, Reload, Quit…) into the OS's
 * language; these are the items Cairn names itself, so they follow the page's language, which
 * the page sends with `host:setLocale`. The views' names are the sidebar's (shared/view-labels.ts).
 */
import type { View } from '../../shared/contracts/host.js';
import type { Locale } from '../../shared/locale.js';
import { VIEW_LABELS } from '../../shared/view-labels.js';

export interface MenuLabels {
  file: string;
  openFolder: string;
  importConversation: string;
  export: string;
  recent: string;
  noRecent: string;
  view: string;
  views: Record<View, string>;
}

export const MENU_LABELS: Record<Locale, MenuLabels> = {
  en: {
    file: 'File',
    openFolder: 'Open Folder…',
    importConversation: 'Import Conversation…',
    export: 'Export…',
    recent: 'Recent',
    noRecent: 'No folders ingested yet',
    view: 'View',
    views: VIEW_LABELS.en,
  },
  zh: {
    file: '文件',
    openFolder: '打开文件夹…',
    importConversation: '导入对话…',
    export: '导出…',
    recent: '最近',
    noRecent: '还没有导入过文件夹',
    view: '视图',
    views: VIEW_LABELS.zh,
  },
};

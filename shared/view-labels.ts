/**
 * The views' names in each language of the interface: one home for the sidebar (renderer/i18n
 * `nav.*`) and the desktop menu's View items (main/app/menu-labels.ts), which may not import the
 * renderer.
 */
import type { View } from './contracts/host.js';
import type { Locale } from './locale.js';

export const VIEW_LABELS: Record<Locale, Record<View, string>> = {
  en: {
    home: 'Home',
    explorer: 'Explorer',
    dag: 'Live DAG',
    search: 'Search',
    sessions: 'Sessions',
    memories: 'Memories',
    compress: 'Compression',
    export: 'Export',
    monitor: 'LLM monitor',
    settings: 'Settings',
  },
  zh: {
    home: '首页',
    explorer: '浏览器',
    dag: '实时 DAG',
    search: '搜索',
    sessions: '会话',
    memories: '记忆',
    compress: '压缩',
    export: '导出',
    monitor: 'LLM 监控',
    settings: '设置',
  },
};

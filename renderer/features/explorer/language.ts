/** The Monaco language id for a node, from its metadata, else its file extension. */
const BY_NAME: Record<string, string> = {
  python: 'python',
  py: 'python',
  typescript: 'typescript',
  ts: 'typescript',
  tsx: 'typescript',
  javascript: 'javascript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  go: 'go',
  rust: 'rust',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  'c++': 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  markdown: 'markdown',
  md: 'markdown',
  html: 'html',
  htm: 'html',
  css: 'css',
  json: 'json',
  yaml: 'yaml',
  yml: 'yaml',
  shell: 'shell',
  sh: 'shell',
  bash: 'shell',
  sql: 'sql',
  xml: 'xml',
  ruby: 'ruby',
  rb: 'ruby',
  php: 'php',
  kotlin: 'kotlin',
  kt: 'kotlin',
  swift: 'swift',
  csharp: 'csharp',
  cs: 'csharp',
  toml: 'ini',
  ini: 'ini',
};

export function monacoLanguage(meta: { language?: string; source_format?: string } | null | undefined, uri: string): string {
  for (const hint of [meta?.language, meta?.source_format]) {
    const id = hint ? BY_NAME[hint.toLowerCase()] : undefined;
    if (id) return id;
  }
  // A split document's folder (`guide.md/`) is named like its file.
  const name = uri.replace(/\/$/, '').split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return BY_NAME[ext] ?? 'plaintext';
}

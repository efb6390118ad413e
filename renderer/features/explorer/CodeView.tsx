/** L2 content in a read-only Monaco editor. Loaded on demand: Monaco is most of the bundle. */
import '../../monaco-setup';
import Editor from '@monaco-editor/react';

export default function CodeView({ value, language, theme, label }: { value: string; language: string; theme: 'light' | 'dark'; label: string }) {
  return (
    <div className="code-view" data-testid="code-view" data-language={language}>
      <Editor
        value={value}
        language={language}
        theme={theme === 'dark' ? 'vs-dark' : 'vs'}
        height="100%"
        options={{
          readOnly: true,
          domReadOnly: true,
          minimap: { enabled: false },
          scrollBeyondLastLine: false,
          wordWrap: language === 'markdown' || language === 'plaintext' ? 'on' : 'off',
          automaticLayout: true,
          fontSize: 13,
          renderWhitespace: 'none',
          ariaLabel: label,
        }}
      />
    </div>
  );
}

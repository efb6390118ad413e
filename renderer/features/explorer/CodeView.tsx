/** L2 content in a read-only Monaco editor. Loaded on demand: Monaco is most of the bundle. */
import '../../monaco-setup';
import Editor from '@monaco-editor/react';

export default function CodeView({ value, language, theme, label }: { value: string; language: string; theme: 'light' | 'dark'; label: string }) {
  // Prose, not code: dashes, curly quotes and accents are the text itself, not look-alike
  // characters to flag (Monaco boxes them by default, which is meant for source code).
  const prose = language === 'markdown' || language === 'plaintext';
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
          wordWrap: prose ? 'on' : 'off',
          unicodeHighlight: prose ? { ambiguousCharacters: false, invisibleCharacters: false } : {},
          automaticLayout: true,
          fontSize: 13,
          renderWhitespace: 'none',
          ariaLabel: label,
        }}
      />
    </div>
  );
}

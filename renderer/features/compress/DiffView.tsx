/** Before and after side by side in a read-only Monaco diff editor. Loaded on demand: Monaco is most of the bundle. */
import '../../monaco-setup';
import { DiffEditor } from '@monaco-editor/react';
import { useLayoutEffect, useRef } from 'react';
import type { monaco } from '../../monaco-setup';

type DiffEditorInstance = ReturnType<typeof monaco.editor.createDiffEditor>;

export default function DiffView({ before, after, theme, label }: { before: string; after: string; theme: 'light' | 'dark'; label: string }) {
  const editor = useRef<DiffEditorInstance | null>(null);

  // @monaco-editor/react 4.7 disposes the two text models before the diff widget on unmount, and
  // Monaco reports "TextModel got disposed before DiffEditorWidget model got reset"
  // (https://github.com/suren-atoyan/monaco-react/issues/647). So the library keeps the models
  // (keepCurrent*Model) and this cleanup detaches them, then disposes them. A layout-effect cleanup
  // runs before the library's own (passive) cleanup, while the widget is still alive.
  useLayoutEffect(
    () => () => {
      const widget = editor.current;
      editor.current = null;
      const models = widget?.getModel();
      widget?.setModel(null);
      models?.original.dispose();
      models?.modified.dispose();
    },
    [],
  );

  return (
    <div className="diff-view" data-testid="diff-view">
      <DiffEditor
        original={before}
        modified={after}
        language="markdown"
        theme={theme === 'dark' ? 'vs-dark' : 'vs'}
        height="100%"
        keepCurrentOriginalModel
        keepCurrentModifiedModel
        onMount={(instance) => {
          editor.current = instance;
        }}
        options={{
          readOnly: true,
          originalEditable: false,
          renderSideBySide: true,
          minimap: { enabled: false },
          wordWrap: 'on',
          diffWordWrap: 'on',
          automaticLayout: true,
          scrollBeyondLastLine: false,
          fontSize: 13,
          ariaLabel: label,
        }}
      />
    </div>
  );
}

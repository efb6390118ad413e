/**
 * Monaco, bundled locally (docs/STACK.md#monaco-bundled-locally): its workers come from this build
 * through Vite's `?worker` imports, and @monaco-editor/react is pointed at this copy, so nothing is
 * fetched from a CDN. Imported only by the code view, which is loaded on demand.
 */
import * as monaco from 'monaco-editor';
import { loader } from '@monaco-editor/react';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';
import CssWorker from 'monaco-editor/language/css/css.worker?worker';
import HtmlWorker from 'monaco-editor/language/html/html.worker?worker';
import TsWorker from 'monaco-editor/language/typescript/ts.worker?worker';

self.MonacoEnvironment = {
  getWorker(_id: string, label: string) {
    if (label === 'json') return new JsonWorker();
    if (label === 'css' || label === 'scss' || label === 'less') return new CssWorker();
    if (label === 'html' || label === 'handlebars' || label === 'razor') return new HtmlWorker();
    if (label === 'typescript' || label === 'javascript') return new TsWorker();
    return new EditorWorker();
  },
};

// Without this, @monaco-editor/react loads Monaco from a CDN.
loader.config({ monaco });

export { monaco };

import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors';
import { createPortabilityStore } from './portability-store';
import { pendingClient } from './view-stores.fixtures';

const counts = { memories: 1, history: 2, conversations: 1, analyses: 1, nodes: 0 };

describe('the export store', () => {
  it('exports in the chosen format to the path given and shows what was written', async () => {
    const { client, next } = pendingClient();
    const store = createPortabilityStore(client);
    await store.getState().runExport(); // no path
    store.getState().setFormat('markdown');
    store.getState().setOut(' /tmp/out ');
    const done = store.getState().runExport();
    const call = next('export:run');
    expect(call.request).toEqual({ format: 'markdown', out: '/tmp/out' });
    const written = { format: 'markdown', out: '/tmp/out', files: 3, bytes: 900, memories: 2, conversations: 1, chains: 4, clusters: 2, nodes: 0, ms: 12 };
    call.resolve(written);
    await done;
    expect(store.getState()).toMatchObject({ exportStatus: 'done', exported: written });
  });

  it('exports one scope when one is chosen, to a path or as a download', async () => {
    const { client, next } = pendingClient();
    const store = createPortabilityStore(client);
    store.getState().setScope('user');
    store.getState().setOut('/tmp/out.json');
    const done = store.getState().runExport();
    const call = next('export:run');
    expect(call.request).toEqual({ format: 'json', out: '/tmp/out.json', scope: 'user' });
    call.resolve({ format: 'json', out: '/tmp/out.json', files: 1, bytes: 10, memories: 2, conversations: 0, chains: 0, clusters: 0, nodes: 0, ms: 1 });
    await done;

    const asked: unknown[] = [];
    const downloaded = { format: 'jsonl', out: 'cairn-export-20261201-120000-user.jsonl', files: 1, bytes: 10, memories: 2, conversations: 0, chains: 0, clusters: 0, nodes: 0, ms: 1 } as const;
    store.getState().setFormat('jsonl');
    await store.getState().runDownload(async (request) => {
      asked.push(request);
      return downloaded;
    });
    expect(asked).toEqual([{ format: 'jsonl', scope: 'user' }]);
    expect(store.getState()).toMatchObject({ exportStatus: 'done', exported: downloaded });

    store.getState().setScope(null);
    await store.getState().runDownload(async (request) => {
      asked.push(request);
      throw new CairnError('INVALID_INPUT', 'engine: no');
    });
    expect(asked.at(-1)).toEqual({ format: 'jsonl' });
    expect(store.getState()).toMatchObject({ exportStatus: 'failed', exportError: 'engine: no', exported: null });
  });

  it('imports a path and reports a failure with its message', async () => {
    const { client, next } = pendingClient();
    const store = createPortabilityStore(client);
    store.getState().setImportPath('/tmp/out.json');
    let done = store.getState().runImport();
    next('import:run').reject(new CairnError('NOT_FOUND', 'engine: no such file'));
    await done;
    expect(store.getState()).toMatchObject({ importStatus: 'failed', importError: 'engine: no such file' });
    done = store.getState().runImport();
    const call = next('import:run');
    expect(call.request).toEqual({ path: '/tmp/out.json' });
    call.resolve({ format: 'json', path: '/tmp/out.json', added: counts, updated: counts, unchanged: counts, kept: [], ms: 5 });
    await done;
    expect(store.getState()).toMatchObject({ importStatus: 'done', importError: null, imported: { format: 'json' } });
  });
});

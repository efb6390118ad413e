import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors';
import type { NodeEntry } from '../../shared/types/node';
import type { CairnClient } from '../api/client';
import { ancestorsOf, createExplorerStore, hasContent } from './explorer-store';

const tree: Record<string, NodeEntry[]> = {
  'ctx://resources/': [{ uri: 'ctx://resources/sample/', name: 'sample', kind: 'dir' }],
  'ctx://resources/sample/': [
    { uri: 'ctx://resources/sample/docs/', name: 'docs', kind: 'dir' },
    { uri: 'ctx://resources/sample/README.md', name: 'README.md', kind: 'file' },
  ],
  'ctx://resources/sample/docs/': [{ uri: 'ctx://resources/sample/docs/a.md', name: 'a.md', kind: 'file' }],
};

function fakeClient(): { client: CairnClient; calls: string[] } {
  const calls: string[] = [];
  const client = {
    call: async (command: string, request: { uri: string; level?: number }) => {
      calls.push(`${command} ${request.uri}${request.level !== undefined ? ` ${request.level}` : ''}`);
      if (command === 'fs:ls') {
        const entries = tree[request.uri];
        if (!entries) throw new CairnError('NOT_FOUND', `${request.uri} does not exist`);
        return { uri: request.uri, entries };
      }
      if (command === 'fs:stat') {
        const isDir = request.uri.endsWith('/');
        const document = request.uri.endsWith('.md/');
        const meta = document ? { uri: request.uri, kind: 'dir', context_type: 'resource', document: true, created_at: '', updated_at: '' } : null;
        return { uri: request.uri, kind: isDir ? 'dir' : 'file', bytes: 5, has_abstract: true, has_overview: !isDir, meta };
      }
      if (command === 'fs:read') {
        if (request.level === 1) throw new CairnError('NOT_FOUND', 'no L1 yet');
        return { uri: request.uri, level: request.level, content: `level ${request.level}` };
      }
      throw new Error(command);
    },
  } as unknown as CairnClient;
  return { client, calls };
}

describe('the explorer store', () => {
  it('lists directories lazily, once', async () => {
    const { client, calls } = fakeClient();
    const store = createExplorerStore(client);
    await store.getState().load('ctx://resources/');
    await store.getState().load('ctx://resources/');
    expect(calls).toEqual(['fs:ls ctx://resources/']);
    await store.getState().toggle('ctx://resources/sample/');
    expect(store.getState().expanded['ctx://resources/sample/']).toBe(true);
    expect(store.getState().listings['ctx://resources/sample/']?.entries).toHaveLength(2);
  });

  it('treats a scope with nothing ingested as empty, and a missing folder as an error', async () => {
    const { client } = fakeClient();
    const store = createExplorerStore(client);
    await store.getState().load('ctx://user/');
    expect(store.getState().listings['ctx://user/']).toEqual({ status: 'loaded', entries: [] });
    await store.getState().load('ctx://resources/gone/');
    expect(store.getState().listings['ctx://resources/gone/']?.status).toBe('failed');
  });

  it('selects a file: stat, L0, L1 when present (missing L1 is null), and its content', async () => {
    const { client, calls } = fakeClient();
    const store = createExplorerStore(client);
    await store.getState().select('ctx://resources/sample/README.md');
    expect(store.getState().details).toMatchObject({ status: 'loaded', abstract: 'level 0', overview: null, content: 'level 2' });
    expect(calls).toContain('fs:read ctx://resources/sample/README.md 2');
  });

  it("shows a split document's folder with the whole document as its L2, and no L2 for other folders", async () => {
    const { client, calls } = fakeClient();
    const store = createExplorerStore(client);
    await store.getState().select('ctx://resources/sample/docs/guide.md/');
    expect(calls).toContain('fs:read ctx://resources/sample/docs/guide.md/ 2');
    expect(store.getState().details).toMatchObject({ status: 'loaded', content: 'level 2' });
    expect(hasContent(store.getState().details!.stat!)).toBe(true);

    await store.getState().select('ctx://resources/sample/docs/');
    expect(calls).not.toContain('fs:read ctx://resources/sample/docs/ 2');
    expect(store.getState().details).toMatchObject({ status: 'loaded', content: null });
    expect(hasContent(store.getState().details!.stat!)).toBe(false);
  });

  it('reveals a deep node by opening its ancestors', async () => {
    const { client } = fakeClient();
    const store = createExplorerStore(client);
    expect(ancestorsOf('ctx://resources/sample/docs/a.md')).toEqual(['ctx://resources/', 'ctx://resources/sample/', 'ctx://resources/sample/docs/']);
    await store.getState().reveal('ctx://resources/sample/docs/a.md');
    const s = store.getState();
    expect(s.selected).toBe('ctx://resources/sample/docs/a.md');
    expect(s.expanded['ctx://resources/sample/docs/']).toBe(true);
    expect(s.listings['ctx://resources/sample/docs/']?.status).toBe('loaded');
    expect(s.details?.stat?.kind).toBe('file');
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionAnalysisResult, StoredConversation } from '../../shared/contracts/api';
import type { Conversation } from '../../shared/types/memory';
import { CairnError } from '../../shared/errors';
import { allMessages, createSessionsStore, findNode } from './sessions-store';
import { pendingClient, settle } from './view-stores.fixtures';

const stored = (id: string, analyzed = false): StoredConversation => ({
  id,
  uri: `ctx://session/${id}/`,
  title: `About ${id}`,
  sessions: 1,
  messages: 2,
  imported_at: '2024-05-08T14:00:00Z',
  analyzed,
});

const conversation = (id: string): Conversation => ({
  id,
  sessions: [
    { id: 's1', messages: [{ id: 's1:1', role: 'user', speaker: 'Ana', text: 'The pods die', timestamp: '2024-05-08T13:56:00Z' }] },
    { id: 's2', messages: [{ id: 's2:1', role: 'assistant', text: 'Clear the interval' }] },
  ],
});

const analysis = (id: string) =>
  ({
    conversation_id: id,
    chains: [
      {
        chain_id: 'causal-1',
        chain_type: 'CAUSAL',
        nodes: [
          { id: 'n1', role: 'problem', text: 'OOM', message_ids: ['s1:1'] },
          { id: 'n2', role: 'cause', text: 'cache', message_ids: ['s2:1'] },
        ],
      },
    ],
  }) as unknown as SessionAnalysisResult;

describe('the sessions store', () => {
  it('imports a path, lists the conversations and opens the imported one with its analysis', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    await store.getState().importPathNow(); // nothing to import yet
    store.getState().setImportPath('  /data/leak.json ');
    const done = store.getState().importPathNow();
    expect(store.getState().importStatus).toBe('loading');
    const imp = next('sessions:import');
    expect(imp.request).toEqual({ path: '/data/leak.json' });
    imp.resolve({ conversations: [{ ...stored('leak'), unchanged: false, records: 2 }], commits: [] });
    await settle();
    next('sessions:list').resolve({ conversations: [stored('leak'), stored('other', true)] });
    await settle();
    const get = next('sessions:get');
    expect(get.request).toEqual({ id: 'leak' });
    expect(store.getState()).toMatchObject({ openId: 'leak', analysisStatus: 'loading', imported: ['leak'] });
    get.resolve({ uri: 'ctx://session/leak/', conversation: conversation('leak') });
    await settle();
    expect(allMessages(store.getState().conversation).map((m) => `${m.session_id}/${m.id}`)).toEqual(['s1/s1:1', 's2/s2:1']);
    const analyze = next('sessions:analyze');
    expect(analyze.request).toEqual({ id: 'leak' });
    analyze.resolve(analysis('leak'));
    await done;
    const s = store.getState();
    expect(s.analysisStatus).toBe('done');
    expect(s.analysis?.conversation_id).toBe('leak');
    expect(s.conversations.map((c) => [c.id, c.analyzed])).toEqual([
      ['leak', true],
      ['other', true],
    ]);
  });

  it('keeps only the conversation opened last when answers arrive out of order', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    void store.getState().open('a');
    const first = next('sessions:get');
    void store.getState().open('b');
    const second = next('sessions:get');
    second.resolve({ uri: 'ctx://session/b/', conversation: conversation('b') });
    first.resolve({ uri: 'ctx://session/a/', conversation: conversation('a') });
    await settle();
    expect(store.getState().conversation?.id).toBe('b');
    next('sessions:analyze').resolve(analysis('b'));
    await settle();
    expect(store.getState().analysis?.conversation_id).toBe('b');
    expect(() => next('sessions:analyze')).toThrow(/no pending/);
  });

  it('chooses a chain node (again to unchoose) and finds its source messages', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    void store.getState().open('a');
    next('sessions:get').resolve({ uri: 'ctx://session/a/', conversation: conversation('a') });
    await settle();
    next('sessions:analyze').resolve(analysis('a'));
    await settle();
    store.getState().setTab('chains');
    expect(store.getState().tab).toBe('chains');
    store.getState().chooseNode('causal-1/n2');
    expect(findNode(store.getState().analysis, store.getState().chosenNode)?.node.message_ids).toEqual(['s2:1']);
    store.getState().chooseNode('causal-1/n2');
    expect(store.getState().chosenNode).toBeNull();
    expect(findNode(store.getState().analysis, 'causal-1/none')).toBeNull();
  });

  it('commits the open conversation and reports the memory changes, or the failure', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    await store.getState().commitOpen(); // nothing open
    void store.getState().open('a');
    next('sessions:get').resolve({ uri: 'ctx://session/a/', conversation: conversation('a') });
    await settle();
    next('sessions:analyze').resolve(analysis('a'));
    await settle();
    const committing = store.getState().commitOpen();
    void store.getState().commitOpen(); // a second click while the first runs does nothing
    const commit = next('sessions:commit');
    expect(() => next('sessions:commit')).toThrow(/no pending/);
    expect(commit.request).toEqual({ id: 'a' });
    commit.resolve({ conversation_id: 'a', uri: 'ctx://session/a/', action: 'COORDINATED_EXTRACTION', confidence: 0.86, explanation: [], candidates: 1, changes: [] });
    await committing;
    expect(store.getState()).toMatchObject({ commitStatus: 'done', commit: { candidates: 1 } });

    const again = store.getState().commitOpen();
    next('sessions:commit').reject(new CairnError('INTERNAL', 'engine: store locked'));
    await again;
    expect(store.getState()).toMatchObject({ commitStatus: 'failed', error: 'engine: store locked' });
  });

  it('imports several files one by one: a refused file keeps the engine error, the others still import and the first is opened', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    await store.getState().importFiles([]); // nothing to import
    const done = store.getState().importFiles([
      { name: 'notes.json', path: '/ws/uploads/c/notes.json' },
      { name: 'leak.json', path: '/ws/uploads/c/leak.json' },
      { name: 'exports.json', path: '/ws/uploads/c/exports.json' },
    ]);
    expect(store.getState().importStatus).toBe('loading');
    expect(store.getState().fileImports.map((f) => f.status)).toEqual(['importing', 'waiting', 'waiting']);
    void store.getState().importFiles([{ name: 'x', path: '/x' }]); // a second import while one runs does nothing

    const first = next('sessions:import');
    expect(first.request).toEqual({ path: '/ws/uploads/c/notes.json' });
    expect(() => next('sessions:import')).toThrow(/no pending/); // one at a time
    first.reject(new CairnError('INVALID_INPUT', 'engine: notes.json: not a conversation'));
    await settle();
    const second = next('sessions:import');
    expect(second.request).toEqual({ path: '/ws/uploads/c/leak.json' });
    second.resolve({ conversations: [{ ...stored('leak'), unchanged: false, records: 2 }], commits: [] });
    await settle();
    next('sessions:import').resolve({ conversations: [{ ...stored('a'), unchanged: false, records: 1 }, { ...stored('b'), unchanged: true, records: 0 }], commits: [] });
    await settle();
    expect(store.getState().fileImports).toEqual([
      { name: 'notes.json', path: '/ws/uploads/c/notes.json', status: 'failed', conversations: [], error: { code: 'INVALID_INPUT', message: 'engine: notes.json: not a conversation' } },
      { name: 'leak.json', path: '/ws/uploads/c/leak.json', status: 'done', conversations: ['leak'], error: null },
      { name: 'exports.json', path: '/ws/uploads/c/exports.json', status: 'done', conversations: ['a', 'b'], error: null },
    ]);
    expect(store.getState()).toMatchObject({ importStatus: 'done', imported: ['leak', 'a', 'b'] });
    next('sessions:list').resolve({ conversations: [stored('leak'), stored('a'), stored('b')] });
    await settle();
    expect(next('sessions:get').request).toEqual({ id: 'leak' });
    store.getState().setImportPath('/data/other.json');
    void store.getState().importPathNow();
    expect(store.getState().fileImports).toEqual([]); // an import by path clears the list
    void done;
  });

  it('reports the failure when no file imports', async () => {
    const { client, next } = pendingClient();
    const store = createSessionsStore(client);
    const done = store.getState().importFiles([{ name: 'notes.txt', path: '/ws/uploads/c/notes.txt' }]);
    next('sessions:import').reject(new Error('engine: notes.txt: no message found'));
    await done;
    expect(store.getState()).toMatchObject({ importStatus: 'failed', error: 'engine: notes.txt: no message found', imported: [] });
    expect(store.getState().fileImports[0]).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', message: 'engine: notes.txt: no message found' } });
    expect(() => next('sessions:list')).toThrow(/no pending/);
  });
});

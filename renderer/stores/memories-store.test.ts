import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors';
import { countByCategory, createMemoriesStore, visibleMemories } from './memories-store';
import { change, memory, pendingClient, settle } from './view-stores.fixtures';

const list = [memory('m1', 'semantic'), memory('m2', 'procedural'), memory('m3', 'semantic')];

async function loaded() {
  const harness = pendingClient();
  const store = createMemoriesStore(harness.client);
  const done = store.getState().refresh();
  harness.next('memories:list').resolve({ memories: list });
  await done;
  return { ...harness, store };
}

describe('the memories store', () => {
  it('counts memories by category and filters the list', async () => {
    const { store } = await loaded();
    expect(countByCategory(store.getState().memories)).toEqual([
      { category: 'procedural', count: 1 },
      { category: 'semantic', count: 2 },
    ]);
    store.getState().setCategory('semantic');
    expect(visibleMemories(store.getState().memories, store.getState().category).map((m) => m.id)).toEqual(['m1', 'm3']);
    expect(visibleMemories(store.getState().memories, 'all')).toHaveLength(3);
  });

  it('opens a memory with its history, edits only what changed and applies the change in place', async () => {
    const { store, next } = await loaded();
    void store.getState().open('m1');
    const history = next('memories:history');
    expect(history.request).toEqual({ id: 'm1' });
    history.resolve({ changes: [change('add', undefined, list[0])] });
    await settle();
    expect(store.getState().history.map((c) => c.op)).toEqual(['add']);

    store.getState().startEdit();
    expect(store.getState().draft).toEqual({ title: 'title m1', content: 'content of m1', category: 'semantic' });
    store.getState().setDraft({ title: '  Heap grows with traffic ', category: 'event' });
    const saving = store.getState().save();
    const edit = next('memories:edit');
    expect(edit.request).toEqual({ id: 'm1', patch: { title: 'Heap grows with traffic', category: 'event' } });
    const after = { ...list[0]!, title: 'Heap grows with traffic', category: 'event' as const };
    edit.resolve({ change: change('update', list[0], after) });
    await settle();
    next('memories:history').resolve({ changes: [change('add', undefined, list[0]), change('update', list[0], after)] });
    await saving;
    const s = store.getState();
    expect(s.draft).toBeNull();
    expect(s.memories.find((m) => m.id === 'm1')).toMatchObject({ title: 'Heap grows with traffic', category: 'event' });
    expect(s.history.map((c) => c.op)).toEqual(['add', 'update']);

    // An untouched draft closes without a call; an emptied title is refused.
    store.getState().startEdit();
    await store.getState().save();
    expect(store.getState().draft).toBeNull();
    store.getState().startEdit();
    store.getState().setDraft({ title: '   ' });
    await store.getState().save();
    expect(store.getState().error).toBe('empty');
    expect(() => next('memories:edit')).toThrow(/no pending/);
  });

  it('forgets only after a confirmation, and keeps the memory when forgetting fails', async () => {
    const { store, next } = await loaded();
    void store.getState().open('m2');
    next('memories:history').resolve({ changes: [] });
    await settle();
    await store.getState().forget(); // not confirmed
    expect(() => next('memories:forget')).toThrow(/no pending/);

    store.getState().askForget();
    expect(store.getState().confirmForget).toBe('m2');
    store.getState().cancelForget();
    expect(store.getState().confirmForget).toBeNull();

    store.getState().askForget();
    let forgetting = store.getState().forget();
    next('memories:forget').reject(new CairnError('INTERNAL', 'engine: disk full'));
    await forgetting;
    expect(store.getState().memories.map((m) => m.id)).toContain('m2');
    expect(store.getState().error).toBe('engine: disk full');

    forgetting = store.getState().forget();
    const forget = next('memories:forget');
    expect(forget.request).toEqual({ id: 'm2', reason: 'forgotten by user' });
    forget.resolve({ change: change('delete', list[1]) });
    await settle();
    next('memories:history').resolve({ changes: [change('delete', list[1])] });
    await forgetting;
    expect(store.getState().memories.map((m) => m.id)).toEqual(['m1', 'm3']);
    expect(store.getState()).toMatchObject({ confirmForget: null, openId: 'm2' });
    expect(store.getState().history[0]?.before?.id).toBe('m2');
  });
});

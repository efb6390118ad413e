import { describe, expect, it } from 'vitest';
import { CairnError } from '../../shared/errors';
import { blockFates, createCompressStore } from './compress-store';
import { block, compression, pendingClient, settle } from './view-stores.fixtures';

const blocks = [block('a', 30, ['c1']), block('b', 40), block('c', 50, ['c9']), block('d', 20)];

describe('the compression store', () => {
  it('packs the context for a query, then compresses its blocks for the before/after texts', async () => {
    const { client, next } = pendingClient();
    const store = createCompressStore(client);
    await store.getState().run(); // no query
    store.getState().setQuery(' heap leak ');
    store.getState().setBudget(99.6);
    store.getState().setStrategy('chain_aware');
    const done = store.getState().run();
    expect(store.getState().status).toBe('running');
    const pack = next('context:pack');
    expect(pack.request).toEqual({ query: 'heap leak', budget: 100, strategy: 'chain_aware' });
    const packed = { query: 'heap leak', budget: 100, blocks, result: { ...compression(blocks), budget: 80 }, markdown: '# pack', legend: [], tokens: 3 };
    pack.resolve(packed);
    await settle();
    // The blocks again, at the budget the pack's text left them, cut between sentences only.
    const run = next('compress:run');
    expect(run.request).toEqual({ blocks, strategy: 'chain_aware', budget: 80, whole_sentences: true });
    run.resolve({ result: compression(blocks), before: 'all four', after: 'two and a summary' });
    await done;
    expect(store.getState()).toMatchObject({ status: 'done', before: 'all four', after: 'two and a summary', ran: 'heap leak', pack: packed });
    expect(blockFates(blocks, store.getState().result!).map((f) => [f.block.id, f.fate, f.tokens])).toEqual([
      ['a', 'kept', 30],
      ['b', 'shortened', 20],
      ['c', 'summarized', 0],
      ['d', 'dropped', 0],
    ]);
  });

  it('keeps the budget in range and drops the answer of an older run', async () => {
    const { client, next } = pendingClient();
    const store = createCompressStore(client);
    store.getState().setBudget(0);
    expect(store.getState().budget).toBe(1);
    store.getState().setBudget(Number.NaN);
    expect(store.getState().budget).toBe(1);
    store.getState().setBudget(500);
    store.getState().setQuery('first');
    const first = store.getState().run();
    const firstPack = next('context:pack');
    store.getState().setQuery('second');
    const second = store.getState().run();
    next('context:pack').resolve({ query: 'second', budget: 500, blocks: [], result: compression(blocks), markdown: '' });
    await second;
    firstPack.resolve({ query: 'first', budget: 500, blocks, result: compression(blocks), markdown: '' });
    await first;
    expect(() => next('compress:run')).toThrow(/no pending/);
    expect(store.getState()).toMatchObject({ ran: 'second', blocks: [] });
  });

  it('reports a failed run', async () => {
    const { client, next } = pendingClient();
    const store = createCompressStore(client);
    store.getState().setQuery('x');
    const done = store.getState().run();
    next('context:pack').reject(new CairnError('INTERNAL', 'engine: no index'));
    await done;
    expect(store.getState()).toMatchObject({ status: 'failed', error: 'engine: no index' });
  });
});

import { describe, expect, it } from 'vitest';
import type { RankedResult } from '../../shared/contracts/api';
import { CairnError } from '../../shared/errors';
import type { CairnClient } from '../api/client';
import { createSearchStore, shownCount, strongCount } from './search-store';

const result = (uri: string, level: 0 | 1 | 2, score: number, weak = false): RankedResult => ({
  uri,
  title: uri.split('/').filter(Boolean).pop()!,
  score,
  scope: uri.startsWith('ctx://user/') ? 'user' : 'resources',
  weak,
  also_at: [],
  hits: [
    {
      uri,
      level,
      score,
      snippet: `about ${uri}`,
      highlights: [],
      heading: null,
      also_at: [],
      context_type: uri.startsWith('ctx://user/') ? 'memory' : 'resource',
      category: 'document',
      provenance: { source: null, lines: null, message_ids: [] },
    },
  ],
});

// As the engine ranks them: by score, levels and scopes mixed, the weak ones last.
const ranked = [
  result('ctx://resources/s/a.md', 2, 0.9),
  result('ctx://user/memories/events/storm.md', 0, 0.8),
  result('ctx://resources/s/', 0, 0.7),
  result('ctx://resources/s/docs/', 1, 0.6),
  result('ctx://resources/s/b.md', 2, 0.5),
  result('ctx://resources/s/noise.md', 2, 0.2, true),
];

interface Call {
  request: Record<string, unknown>;
  signal?: AbortSignal;
  resolve(results: RankedResult[]): void;
  reject(error: unknown): void;
}

/** A client whose searches stay pending until the test answers them. */
function pendingClient(): { client: Pick<CairnClient, 'call'>; calls: Call[] } {
  const calls: Call[] = [];
  const client = {
    call: (_command: string, request: Record<string, unknown>, options?: { signal?: AbortSignal }) =>
      new Promise((resolve, reject) =>
        calls.push({ request, signal: options?.signal, resolve: (results) => resolve({ hits: results.map((r) => r.hits[0]), ranked: results, weak_below: 0.34 }), reject }),
      ),
  } as unknown as Pick<CairnClient, 'call'>;
  return { client, calls };
}

describe('weak results', () => {
  it('are the tail of the ranked list, shown only once asked for', () => {
    expect(strongCount(ranked)).toBe(5);
    expect(strongCount([])).toBe(0);
    expect(shownCount({ results: ranked, showWeak: false })).toBe(5);
    expect(shownCount({ results: ranked, showWeak: true })).toBe(6);
  });
});

describe('the search store', () => {
  it('sends the query with its filters and keeps the results in the engine’s order, weak ones collapsed', async () => {
    const { client, calls } = pendingClient();
    const store = createSearchStore(client);
    store.getState().setQuery('  storm  ');
    store.getState().setMode('fts');
    store.getState().setScope('resources');
    store.getState().setLevel(2);
    const done = store.getState().search();
    expect(store.getState().status).toBe('searching');
    expect(calls[0]!.request).toEqual({ query: 'storm', mode: 'fts', topK: 20, scope: 'resources', level: 2 });
    calls[0]!.resolve(ranked);
    await done;
    const s = store.getState();
    expect(s.status).toBe('done');
    expect(s.results.map((r) => r.uri)).toEqual(ranked.map((r) => r.uri));
    expect(s).toMatchObject({ weakBelow: 0.34, showWeak: false });
    expect(s.searched).toMatchObject({ query: 'storm', mode: 'fts', scope: 'resources', level: 2 });
    expect(s.active).toBe(-1);

    // The same parameters again do not search again; a change does, without scope and level when "all".
    await store.getState().search();
    expect(calls).toHaveLength(1);
    store.getState().setScope('all');
    store.getState().setLevel('all');
    void store.getState().search();
    expect(calls[1]!.request).toEqual({ query: 'storm', mode: 'fts', topK: 20 });
  });

  it('keeps only the latest search: the older one is cancelled and its late answer dropped', async () => {
    const { client, calls } = pendingClient();
    const store = createSearchStore(client);
    store.getState().setQuery('wind');
    const first = store.getState().search();
    store.getState().setQuery('快速入门');
    const second = store.getState().search();
    expect(calls[0]!.signal?.aborted).toBe(true);
    expect(calls[1]!.request.query).toBe('快速入门');
    calls[1]!.resolve([result('ctx://resources/s/docs/zh/快速入门.md', 2, 1)]);
    await second;
    calls[0]!.resolve(ranked);
    await first;
    expect(store.getState().results.map((r) => r.uri)).toEqual(['ctx://resources/s/docs/zh/快速入门.md']);
    expect(store.getState().searched?.query).toBe('快速入门');
  });

  it('reports a failed search and clears on an empty query', async () => {
    const { client, calls } = pendingClient();
    const store = createSearchStore(client);
    store.getState().setQuery('storm');
    const done = store.getState().search();
    calls[0]!.reject(new CairnError('INTERNAL', 'engine: index missing'));
    await done;
    expect(store.getState()).toMatchObject({ status: 'failed', error: 'engine: index missing', results: [] });
    // A failed search is tried again with the same parameters.
    void store.getState().search();
    expect(calls).toHaveLength(2);
    store.getState().setQuery('   ');
    await store.getState().search();
    expect(store.getState()).toMatchObject({ status: 'idle', results: [], searched: null, error: null });
  });

  it('moves the keyboard through the results shown, within bounds', async () => {
    const { client, calls } = pendingClient();
    const store = createSearchStore(client);
    store.getState().move(1);
    expect(store.getState().active).toBe(-1);
    store.getState().setQuery('storm');
    const done = store.getState().search();
    calls[0]!.resolve(ranked);
    await done;
    const { move } = store.getState();
    move(1);
    expect(store.getState().active).toBe(0);
    move(10);
    expect(store.getState().active).toBe(4);
    move(1);
    expect(store.getState().active).toBe(4);
    move(-2);
    expect(store.getState().active).toBe(2);
    store.getState().setActive(-1);
    move(-1);
    expect(store.getState().active).toBe(4);
    store.getState().setActive(99);
    expect(store.getState().active).toBe(-1);
    // The weak match is reachable once shown; hiding it again moves the keyboard back onto the list.
    store.getState().setShowWeak(true);
    move(10);
    expect(store.getState().active).toBe(5);
    store.getState().setShowWeak(false);
    expect(store.getState().active).toBe(4);
    const before = store.getState().focusRequest;
    store.getState().requestFocus();
    expect(store.getState().focusRequest).toBe(before + 1);
  });
});

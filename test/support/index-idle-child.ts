/**
 * A child process that writes and searches through the index worker and never closes it: it must
 * still exit on its own, because an idle index worker does not keep a process alive.
 *
 * Usage: node index-idle-child.mjs <worker url> <workspace>
 */
import { workerSearchIndex } from '../../main/workers/index-worker-client.js';

const index = workerSearchIndex(process.argv[3]!, {}, { workerUrl: new URL(process.argv[2]!) });
await index.upsert([
  {
    id: 'ctx://resources/idle.md#2',
    uri: 'ctx://resources/idle.md',
    parent_uri: 'ctx://resources/',
    level: 2,
    context_type: 'resource',
    category: 'document',
    text: 'An idle worker lets its process exit.',
    tokens: 8,
    content_hash: 'idle',
    updated_at: '2024-05-08T13:56:00.000Z',
    provenance: { source: '/idle.md' },
  },
]);
const hits = await index.search({ text: 'idle worker', mode: 'fts' });
process.stdout.write(`found ${hits.map((hit) => hit.uri).join(' ')}\n`);

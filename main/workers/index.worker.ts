/** The search index's worker (see index-worker-client.ts): embeds, converts and writes records, and answers searches, off the engine's thread. */
import { parentPort } from 'node:worker_threads';
import { serveIndex } from './index-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');
serveIndex(parentPort);

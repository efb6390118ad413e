/**
 * The index worker with two test hooks in front of it (test/engine/index-worker.test.ts), so the
 * production worker carries none: a search for "hang" is never answered, and a search for
 * "crash" ends the worker with exit code 7. Every other message goes to serveIndex.
 */
import { parentPort } from 'node:worker_threads';
import { serveIndex, type IndexHostMessage } from '../../main/workers/index-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');
const port = parentPort;

const hook = (message: IndexHostMessage): 'hang' | 'crash' | null => {
  if (message.type !== 'call' || message.method !== 'search') return null;
  const text = message.args[0].text;
  return text === 'hang' || text === 'crash' ? text : null;
};

serveIndex({
  postMessage: (message) => port.postMessage(message),
  on: (_event, listener) =>
    port.on('message', (message: IndexHostMessage) => {
      const test = hook(message);
      if (test === 'crash') process.exit(7);
      if (test === null) listener(message);
    }),
});

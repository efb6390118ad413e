/** A track worker that answers pings but dies on any real job: the injected worker failure of test/engine/processor.test.ts. */
import { parentPort } from 'node:worker_threads';
import type { TrackHostMessage } from '../../main/workers/track-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');
const port = parentPort;
port.on('message', (message: TrackHostMessage) => {
  if (message.type === 'ping') port.postMessage({ type: 'result', id: message.id, ok: true, result: { pong: true, pid: process.pid } });
  else process.exit(3);
});

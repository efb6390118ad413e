/** A dual-track worker (see track-workers.ts): runs track A or track B's rule path on the conversations it is sent. */
import { parentPort } from 'node:worker_threads';
import { serveTracks } from './track-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');
serveTracks(parentPort);

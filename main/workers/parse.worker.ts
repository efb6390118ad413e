/**
 * A parse worker of the pool (see parse-pool.ts): parses the files it is sent with the parser
 * registry, one at a time. Parsers and tree-sitter grammars load lazily, once per worker.
 */
import { parentPort } from 'node:worker_threads';
import { parseFile } from '../engine/parse/registry.js';
import { serveParser } from './parse-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');
serveParser(parentPort, parseFile);

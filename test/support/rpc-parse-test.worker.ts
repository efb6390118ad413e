/**
 * A parse worker for the pool's tests: speaks the real parse protocol, and behaves according to
 * the first segment of the file's relPath:
 * `slow/{ms}` waits, `fail/...` throws PARSE_FAILED, `exit/...` ends the thread with code 7,
 * `throw/...` throws outside any promise (an uncaught error), anything else echoes the text.
 * Every result names the thread and how many files this worker parsed so far (in `warnings`).
 */
import { parentPort, threadId } from 'node:worker_threads';
import { CairnError } from '../../shared/errors.js';
import type { ParsedFile, ParseInput } from '../../main/engine/parse/types.js';
import { serveParser } from '../../main/workers/parse-protocol.js';

if (!parentPort) throw new Error('Must run as a worker thread');

let parsed = 0;

async function parse(input: ParseInput): Promise<ParsedFile> {
  parsed += 1;
  const [kind, arg] = input.relPath.split('/');
  if (kind === 'slow') await new Promise((resolve) => setTimeout(resolve, Number(arg)));
  if (kind === 'fail') throw new CairnError('PARSE_FAILED', `Cannot parse ${input.relPath}`, { details: { relPath: input.relPath } });
  if (kind === 'exit') process.exit(7);
  if (kind === 'throw') {
    setTimeout(() => {
      throw new Error('the parser blew up');
    });
    await new Promise(() => undefined);
  }
  const text = new TextDecoder().decode(input.bytes);
  return {
    node: { kind: 'file', name: input.relPath, content: text, meta: { tokens: text.length } },
    parserName: 'test',
    sourceFormat: 'text',
    tokens: text.length,
    parseMs: 0,
    warnings: [`thread:${threadId}`, `parsed:${parsed}`],
  };
}

serveParser(parentPort, parse);

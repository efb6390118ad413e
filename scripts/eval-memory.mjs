// `npm run eval:memory`: memory quality on the labelled dev conversations in
// test/fixtures/memory-dev (issue 17). Each conversation goes through the engine's offline path
// (import, dual-track analysis on the rules, the memory candidates a commit would store) and is
// scored against its hand-written labels: chains per type, chain steps, bucket assignments and
// memories (precision, recall, expected calibration error), the committed memories, altered
// steps and cut titles, for the tune and the test half. Matching is defined in
// bench/lib/memory-eval.ts and bench/RESULTS.md.
//
// --fit prints the calibration tables fitted on the tune half (isotonic on the rule scores), the
// CALIBRATION object of main/engine/memory/fusion/calibration.ts.
//
// Usage: node scripts/eval-memory.mjs [--json] [--fit] [--fixtures DIR]
import { join } from 'node:path';
import { cliArgs, importTs, ROOT } from '../bench/lib/bundle.mjs';

const args = process.argv.slice(2);
const { flag, option } = cliArgs(args);
const JSON_OUT = flag('--json');
const FIT = flag('--fit');
const FIXTURES = option('--fixtures', join(ROOT, 'test/fixtures/memory-dev'));
if (args.length > 0) {
  console.error(`Unknown arguments: ${args.join(' ')}`);
  process.exit(2);
}

const ev = await importTs('eval-memory', ['./bench/lib/memory-eval.ts']);
const { tune, test, calibration } = await ev.runMemoryEval(FIXTURES);
if (FIT) console.log(ev.formatCalibration(calibration));
else if (JSON_OUT) process.stdout.write(`${JSON.stringify({ tune, test })}\n`);
else console.log(`${ev.formatMemoryReport(tune)}\n\n${ev.formatMemoryReport(test)}`);

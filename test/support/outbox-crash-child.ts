/**
 * A child process for test/engine/outbox-crash.test.ts: enqueues `total` messages (those not in
 * the outbox yet) while a consumer processes them, recording each handler run in a side-effect
 * file. It prints a line for each transition once it is durable, so the test knows what the
 * outbox promised before it kills this process with SIGKILL.
 *
 * Usage: node outbox-crash-child.mjs <outbox dir> <effects file> <total> <compactEvery>
 */
import { appendFileSync } from 'node:fs';
import { Outbox } from '../../main/engine/queue/outbox.js';
import { runOutbox } from '../../main/engine/queue/run-outbox.js';

const [dir, effects, totalText, compactText] = process.argv.slice(2);
if (!dir || !effects || !totalText || !compactText) throw new Error('usage: outbox-crash-child <dir> <effects> <total> <compactEvery>');
const total = Number(totalText);

// Writes to a pipe are synchronous on Linux: a printed line has left this process before a kill.
const say = (line: string) => void process.stdout.write(`${line}\n`);

const outbox = await Outbox.open(dir, { compactEvery: Number(compactText), maxAttempts: 1000 });
outbox.onChange(({ op, message }) => say(`${op} ${message.id} ${message.uri}`));
say('opened');

const known = new Set(outbox.list().map((message) => message.uri));
const controller = new AbortController();
const consumer = runOutbox(
  outbox,
  async (message) => {
    appendFileSync(effects, `${message.id} ${message.uri}\n`);
    // Vary the timing so kills land in every phase: before, during and after the complete.
    if (Math.random() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
  },
  { concurrency: 3, signal: controller.signal, follow: true },
);

for (let i = 0; i < total; i += 1) {
  const uri = `ctx://resources/crash/${i}/`;
  if (!known.has(uri)) await outbox.enqueue({ uri, context_type: 'resource' });
}
await new Promise<void>((resolve) => {
  const check = () => {
    const counts = outbox.counts();
    if (counts.pending === 0 && counts.processing === 0) resolve();
  };
  outbox.onChange(check);
  check();
});
controller.abort();
await consumer;
await outbox.close();
say('finished');

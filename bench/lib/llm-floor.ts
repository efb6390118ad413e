/**
 * The DAG bench's floors (bench/dag.bench.mjs): the same chat requests the DAG sent, replayed
 * against the same mock server at the same concurrency by a client that does nothing else.
 * What such a client achieves is the most the machine allows: no summarizer, however well
 * scheduled, goes faster than the HTTP round trips themselves.
 *
 * - `bare`: node:http on keep-alive sockets, the recorded bodies posted as they are.
 * - `stack`: Cairn's LLM stack (the openai SDK adapter behind metering, retry, the limiter and
 *   the breaker), as the DAG calls it, minus the DAG.
 *
 * Run as a child process: `node llm-floor.bundle.mjs <bare|stack> <baseURL> <requests.json> <concurrency>`;
 * prints `{"ms": ...}`, first request to last answer.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createOpenAIModel } from '../../main/adapters/llm/openai.js';
import { createReliableModel } from '../../main/engine/llm/compose.js';
import { createLimiter } from '../../main/engine/llm/limiter.js';
import { createLlmStats } from '../../main/engine/llm/stats.js';
import type { ChatMessage } from '../../main/engine/ports/language-model.js';

const [mode, baseURL, requestsFile, concurrencyArg] = process.argv.slice(2);
const bodies = JSON.parse(readFileSync(requestsFile!, 'utf8')) as string[];
const concurrency = Number(concurrencyArg);

function bareCall(agent: Agent, url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(void JSON.parse(text)) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function bare(): Promise<number> {
  const agent = new Agent({ keepAlive: true });
  const url = new URL(`${baseURL}/chat/completions`);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await bareCall(agent, url, bodies[next++]!);
    }),
  );
  return performance.now() - started;
}

async function stack(): Promise<number> {
  const base = createOpenAIModel({ baseURL: baseURL!, apiKey: '', model: 'bench-model' });
  const { model } = createReliableModel(base, { limiter: createLimiter(concurrency), stats: createLlmStats() });
  let next = 0;
  const started = performance.now();
  // More callers than slots, as the DAG has: the limiter hands a freed slot to the next waiter.
  await Promise.all(
    Array.from({ length: concurrency * 3 }, async () => {
      while (next < bodies.length) {
        const body = JSON.parse(bodies[next++]!) as { messages: ChatMessage[] };
        await model.complete({ messages: body.messages });
      }
    }),
  );
  return performance.now() - started;
}

const ms = mode === 'bare' ? await bare() : await stack();
console.log(JSON.stringify({ ms: Math.round(ms) }));

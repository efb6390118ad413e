/**
 * Calibrated confidence (issue 17, item 2): the rules' own scores (ruleConfidence for chains,
 * 1 - e^(-cue sum) for buckets, the candidate rules for memories) are turned into the precision
 * they were measured to have, so "0.8" means "about 8 in 10 of these are right".
 *
 * The tables are data, fitted on the TUNE half of the labelled dev set (test/fixtures/memory-dev)
 * by isotonic regression (pool-adjacent-violators over the rule scores, each step's precision
 * smoothed as (correct + 1) / (n + 2)) and
 * written here by `node scripts/eval-memory.mjs --fit` (which prints this CALIBRATION object).
 * Chains and buckets are fitted on their raw rule scores; memories are fitted afterwards, on the
 * scores they get with the chain table in place (run --fit twice after changing the chain rules).
 * The TEST half is never used for fitting: its expected calibration error is the reliability
 * reported in bench/RESULTS.md.
 *
 * A table is a list of steps [upper rule score, precision, examples]: a score takes the precision
 * of the first step whose upper bound it does not exceed (UNMEASURED_PRECISION beyond the last). A chain type
 * without a table keeps its rule score; a memory kind without one takes its category's table.
 */
import type { ChainType, MemoryCategory } from '../../../../shared/types/memory.js';

/** [upper bound of the rule score, measured precision, examples in the step]. */
export type CalibrationStep = readonly [number, number, number];
export type CalibrationTable = readonly CalibrationStep[];

/**
 * Where a memory candidate comes from, as its calibration tells kinds apart: the category, and
 * for a semantic or narrative one the rule that made it ("semantic/LOGIC" is a reasoning chain,
 * "semantic/decision" a stated choice, "narrative/TIME" a timeline). Kinds of one category are
 * measured to differ: a stated decision is nearly always worth keeping, a reasoning chain much less.
 */
export type MemoryKind = MemoryCategory | `${MemoryCategory}/${string}`;

export interface Calibration {
  chain: Partial<Record<ChainType, CalibrationTable>>;
  bucket: CalibrationTable;
  memory: Partial<Record<MemoryKind | 'all', CalibrationTable>>;
  /**
   * Per-kind auto-commit gates: the lowest calibrated confidence at which a memory of the kind is
   * committed without review. Fitted with the memory tables: the kinds and steps, best first, whose
   * pooled tune precision still reaches the committed-memory goal. A kind without a gate (not
   * measured, or below the goal) is always proposed for review.
   */
  commit: Partial<Record<MemoryKind, number>>;
}

// Fitted by `node scripts/eval-memory.mjs --fit` on the tune half (the twenty-two conversations whose
// labels say "split": "tune", test/fixtures/memory-dev/README.md), session 15. Memory scores follow
// the chain tables, so the fit is run until it prints what it was run on.
export const CALIBRATION: Calibration = {
  chain: {
    CAUSAL: [[0.8, 0.833, 28], [0.93, 0.909, 9]],
    LOGIC: [[0.8, 0.966, 57], [0.875, 0.875, 6]],
    OPERATION: [[0.7, 0.667, 4], [0.95, 0.923, 11]],
    NARRATIVE: [[0.93, 0.722, 16], [0.95, 0.875, 6]],
    TIME: [[0.7, 0.6, 3], [0.95, 0.828, 27]],
  },
  bucket: [[0.699, 0.645, 721], [0.817, 0.865, 72], [0.9, 0.955, 20]],
  memory: {
    all: [[0.331, 0.5, 6], [0.875, 0.569, 209], [0.95, 0.671, 77]],
    semantic: [[0.95, 0.664, 135]],
    narrative: [[0.497, 0.2, 3], [0.662, 0.273, 9], [0.875, 0.585, 39]],
    preference: [[0.55, 0.5, 6], [0.7, 0.923, 11]],
    procedural: [[0.667, 0.5, 4], [0.923, 0.923, 11]],
    event: [[0.828, 0.427, 73]],
    'semantic/CAUSAL-episode': [[0.833, 0.25, 10]],
    'semantic/LOGIC': [[0.95, 0.569, 63]],
    'narrative/NARRATIVE': [[0.875, 0.792, 22]],
    'semantic/decision-topic': [[0.567, 0.857, 12], [0.568, 0.667, 1]],
    'semantic/CAUSAL': [[0.909, 0.759, 27]],
    'semantic/decision': [[0.6, 0.833, 22]],
    'narrative/TIME': [[0.497, 0.2, 3], [0.662, 0.273, 9], [0.828, 0.316, 17]],
  },
  commit: {
    preference: 0.923,
    procedural: 0.923,
    'semantic/decision-topic': 0.667,
    'semantic/decision': 0.833,
    'narrative/NARRATIVE': 0.792,
    'semantic/CAUSAL': 0.759,
  },
};

/**
 * A score above every step of its table was never measured: the tune half has no such
 * prediction (a longer chain, one spanning more messages than any there), so the table cannot
 * say how often it is right and it gets the smoothing's prior, one half, rather than the best
 * step's precision. A fitted table's last bound is the largest score it saw, so every score of
 * the data it was fitted on is inside it.
 */
export const UNMEASURED_PRECISION = 0.5;

/** The measured precision of a rule score under `table` (the score itself when there is no table). */
export function calibrate(table: CalibrationTable | undefined, score: number): number {
  if (!table || table.length === 0) return score;
  for (const [upper, precision] of table) if (score <= upper) return precision;
  return UNMEASURED_PRECISION;
}

export function calibrateChain(type: ChainType, score: number): number {
  return calibrate(CALIBRATION.chain[type], score);
}

export function calibrateBucket(score: number): number {
  return calibrate(CALIBRATION.bucket, score);
}

/** The confidence from which a memory of this kind is committed without review; undefined: never. */
export function commitGate(kind: MemoryKind): number | undefined {
  return CALIBRATION.commit[kind];
}

/** A memory's table: its kind's, else its category's, else the one for all memories. */
export function calibrateMemory(kind: MemoryKind, score: number): number {
  const category = kind.split('/')[0] as MemoryCategory;
  return calibrate(CALIBRATION.memory[kind] ?? CALIBRATION.memory[category] ?? CALIBRATION.memory.all, score);
}

/**
 * Isotonic regression of correctness on score (pool-adjacent-violators): the non-decreasing
 * step function closest to the points in squared error, as a table. Scores are rounded to 3
 * decimals; each step's upper bound is the largest score it holds, and its precision is
 * smoothed towards one half ((correct + 1) / (n + 2)) because the dev set is small.
 */
export function fitIsotonic(points: { score: number; correct: boolean }[]): CalibrationTable {
  const sorted = [...points].sort((a, b) => a.score - b.score);
  const blocks: { upper: number; sum: number; n: number }[] = [];
  for (const p of sorted) {
    blocks.push({ upper: Math.round(p.score * 1000) / 1000, sum: p.correct ? 1 : 0, n: 1 });
    // Merge while the last block's mean is not above the one before it (ties merge too: fewer steps).
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as (typeof blocks)[number];
      const before = blocks[blocks.length - 2] as (typeof blocks)[number];
      if (before.sum / before.n < last.sum / last.n && before.upper < last.upper) break;
      blocks.splice(blocks.length - 2, 2, { upper: Math.max(before.upper, last.upper), sum: before.sum + last.sum, n: before.n + last.n });
    }
  }
  // (correct + 1) / (n + 2): a step of three right answers says 0.8, not certainty.
  return blocks.map((b) => [b.upper, Math.round(((b.sum + 1) / (b.n + 2)) * 1000) / 1000, b.n] as const);
}

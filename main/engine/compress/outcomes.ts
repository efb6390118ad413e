/**
 * "What did we decide / what was the fix" (issue 19, item 3): such a question is answered by the
 * sentence that states the decision or the outcome, not by the discussion around it. The pack
 * detects these questions and ranks up blocks that state one. What counts as a decision or a fix
 * is the memory engine's: the DECISION_CONTEXT cues of track A (their clear signals) and the
 * solution marker of track B's causal chains; a block that is a chain's goal step (solution,
 * effect, conclusion, result) states an outcome by construction.
 */
import { CUES } from '../memory/buckets/cues.js';
import { SOLUTION } from '../memory/chains/extract-causal.js';

/** Chain roles that are where a chain arrives: its decision or outcome. */
export const OUTCOME_ROLES: ReadonlySet<string> = new Set(['solution', 'effect', 'conclusion', 'result']);

/** Asking for a decision, a choice, a fix or an outcome, in English or Chinese. */
const OUTCOME_QUESTION =
  /\b(?:decid(?:e|ed|ing)|decision|chose|choose|chosen|settled? on|agree(?:d)? (?:on|to)|go(?:ing)? with|went with|pick(?:ed)?|the (?:fix|solution|outcome|result|conclusion|verdict|resolution)|fix(?:ed)?|solved?|resolved?|workaround|how did (?:they|we|you|he|she|it) (?:end|handle|deal))\b|决定|决策|选了|选择|选定|定了|拍板|结论|结果|最后|最终|怎么解决|如何解决|解决|修复|办法/i;

export function isOutcomeQuestion(query: string): boolean {
  return OUTCOME_QUESTION.test(query);
}

/** Track A's clear decision signals (weight ≥ 0.8): a hint such as "because" is not a decision. */
const DECISION_CUES: readonly RegExp[] = CUES.DECISION_CONTEXT.filter((cue) => cue.weight >= 0.8).map((cue) => new RegExp(cue.pattern.source, cue.pattern.flags.replace('g', '')));

/** Whether the text states a decision or a fix (English cues are matched lower-cased, as track A does). */
export function statesOutcome(text: string): boolean {
  const lower = text.toLowerCase();
  return SOLUTION.test(text) || DECISION_CUES.some((cue) => cue.test(lower));
}

/**
 * What kind of sentence answers the question (issue 19, item 3). "What did we decide / what was
 * the fix" is answered by the sentence that states the decision or the outcome, "why did it
 * happen" by the one that states a cause, not by the discussion around them, which repeats more
 * of the question's wording. The pack detects these questions and ranks up blocks that state
 * such an answer. What counts as one is the memory engine's: the DECISION_CONTEXT cues of track A
 * (their clear signals), the solution and cause markers of track B's causal chains; a block that
 * is the right step of a chain (a chain's goal for an outcome, its cause or premise for a why)
 * states one by construction.
 */
import { CUES } from '../memory/buckets/cues.js';
import { CAUSE_BACKWARD, SOLUTION } from '../memory/chains/extract-causal.js';

export type AnswerKind = 'outcome' | 'cause';

/** Chain roles that answer each kind: where a chain arrives (its decision or outcome), or where it starts from (its cause, its premise). */
export const ANSWER_ROLES: Readonly<Record<AnswerKind, ReadonlySet<string>>> = {
  outcome: new Set(['solution', 'effect', 'conclusion', 'result']),
  cause: new Set(['cause']),
};

/** Asking for a decision, a choice, a fix or an outcome, in English or Chinese. */
const OUTCOME_QUESTION =
  /\b(?:decid(?:e|ed|ing)|decision|chose|choose|chosen|settled? on|agree(?:d)? (?:on|to)|go(?:ing)? with|went with|pick(?:ed)?|the (?:fix|solution|outcome|result|conclusion|verdict|resolution)|fix(?:ed)?|solved?|resolved?|workaround|how did (?:they|we|you|he|she|it) (?:end|handle|deal))\b|决定|决策|选了|选择|选定|定了|拍板|结论|结果|最后|最终|怎么解决|如何解决|解决|修复|办法/i;

/** Asking for a reason or a cause, in English or Chinese ("why", "what caused", "how come", "为什么", "原因"). */
const CAUSE_QUESTION = /\b(?:why|how come|what (?:caused|causes|made|led to)|(?:the|what) (?:root )?cause|(?:the|what) reason)\b|为什么|为何|怎么会|凭什么|原因|缘故/i;

/** The kinds of answer a question asks for ("why did we pick X" asks for both: the decision and its reason). */
export function answerKindsOf(query: string): AnswerKind[] {
  return [...(OUTCOME_QUESTION.test(query) ? (['outcome'] as const) : []), ...(CAUSE_QUESTION.test(query) ? (['cause'] as const) : [])];
}

/** Track A's clear decision signals (weight ≥ 0.8): a hint such as "because" is not a decision. */
const DECISION_CUES: readonly RegExp[] = CUES.DECISION_CONTEXT.filter((cue) => cue.weight >= 0.8).map((cue) => new RegExp(cue.pattern.source, cue.pattern.flags.replace('g', '')));

/**
 * Whether the text states an answer of this kind (English cues are matched lower-cased, as track
 * A does). A cause only in a conversation's message: documentation says "because" on every page,
 * and ranking those passages up for a "why" question left the one that answers it out of the
 * pack (the retrieval set's why questions, 78 → 61 %; bench/RESULTS.md).
 */
export function statesAnswer(kind: AnswerKind, text: string, inConversation: boolean): boolean {
  if (kind === 'cause') return inConversation && CAUSE_BACKWARD.test(text);
  const lower = text.toLowerCase();
  return SOLUTION.test(text) || DECISION_CUES.some((cue) => cue.test(lower));
}

/**
 * The seed's CrossValidator (docs/SPEC.md#fusion): checks a chain against the conversation and,
 * when it is linked, against its topic cluster.
 *
 * - time (TIME chains, and any chain whose nodes carry ISO times): resolved moments are in
 *   order; the messages they come from are in timestamp order; the chain's messages fall in the
 *   linked cluster's stretch of the conversation.
 * - logic (LOGIC): starts with a premise, ends with a conclusion that is not the premise again,
 *   and its steps follow the conversation.
 * - causal (CAUSAL): a cause comes before the solution/effect, the problem before the solution,
 *   and the chain shares at least one keyword with its linked cluster's topic.
 * - narrative (NARRATIVE): events follow the conversation and dated events are in date order.
 * - operation (OPERATION): steps follow the conversation.
 *
 * confidence = max(0, 1 − 0.2 × issues) (the seed's formula); passed = no issues.
 */
import type { ChainNode, ExtractedChain, TopicCluster, ValidationResult } from '../../../../shared/types/memory.js';
import { wordTerms } from '../../../lib/text-analysis.js';
import { isoMillis } from '../chains/time-expressions.js';
import { span, type MessageOrder } from './signals.js';

export const ISSUE_PENALTY = 0.2;

export interface ValidationContext {
  order: MessageOrder;
  /** Message id → ISO timestamp, for the timestamp-order check. */
  timestamps?: ReadonlyMap<string, string>;
}

export class CrossValidator {
  constructor(private readonly context: ValidationContext) {}

  validate(chain: ExtractedChain, cluster?: TopicCluster): ValidationResult {
    const issues: string[] = [];
    const suggestions: string[] = [];
    const add = (issue: string, suggestion: string) => {
      issues.push(issue);
      if (!suggestions.includes(suggestion)) suggestions.push(suggestion);
    };
    const kind = chain.chain_type;
    if (kind !== 'TIME') this.checkConversationOrder(chain, add);
    if (kind === 'TIME' || chain.nodes.some((n) => isoMillis(n.time) !== undefined)) this.checkTimes(chain, kind === 'TIME', add);
    if (kind === 'TIME' && cluster) this.checkWindow(chain, cluster, add);
    if (kind === 'CAUSAL') this.checkCausal(chain, cluster, add);
    if (kind === 'LOGIC') this.checkLogic(chain, add);
    return {
      validation_type: `${kind.toLowerCase()}_consistency`,
      passed: issues.length === 0,
      confidence: Math.max(0, Math.round((1 - ISSUE_PENALTY * issues.length) * 100) / 100),
      issues,
      suggestions,
      chain_id: chain.chain_id,
      ...(cluster ? { cluster_id: cluster.cluster_id } : {}),
    };
  }

  private position(node: ChainNode): number | undefined {
    const p = span(node.message_ids, this.context.order);
    return p?.[0];
  }

  private checkConversationOrder(chain: ExtractedChain, add: (issue: string, suggestion: string) => void): void {
    let last = -Infinity;
    chain.nodes.forEach((node, i) => {
      const p = this.position(node);
      if (p === undefined) return;
      if (p < last) add(`step ${i + 1} ("${brief(node.text)}") comes from an earlier message than step ${i}`, 'Reorder the steps to follow the conversation, or check that they belong to one chain.');
      last = Math.max(last, p);
    });
  }

  private checkTimes(chain: ExtractedChain, checkStamps: boolean, add: (issue: string, suggestion: string) => void): void {
    let previous: { ms: number; node: ChainNode; index: number } | undefined;
    chain.nodes.forEach((node, index) => {
      const ms = isoMillis(node.time);
      if (ms === undefined) return;
      if (previous && ms < previous.ms) {
        add(`moment ${index + 1} (${node.time}) is before moment ${previous.index + 1} (${previous.node.time})`, 'Check the order of events: a flashback or a wrongly resolved date breaks the timeline.');
      }
      if (!previous || ms >= previous.ms) previous = { ms, node, index };
    });
    if (!checkStamps || !this.context.timestamps) return;
    let lastStamp = -Infinity;
    for (const node of chain.nodes) {
      const stamp = isoMillis(node.message_ids.map((id) => this.context.timestamps?.get(id)).find(Boolean));
      if (stamp === undefined) continue;
      if (stamp < lastStamp) add(`the message of "${brief(node.text)}" was sent before the previous moment's message`, 'Order the moments by when they were said, or split the timeline.');
      lastStamp = Math.max(lastStamp, stamp);
    }
  }

  private checkWindow(chain: ExtractedChain, cluster: TopicCluster, add: (issue: string, suggestion: string) => void): void {
    const a = span(cluster.items.flatMap((i) => i.message_ids), this.context.order);
    const b = span(chain.nodes.flatMap((n) => n.message_ids), this.context.order);
    if (a && b && (b[1] < a[0] || b[0] > a[1])) add(`the timeline (messages #${b[0] + 1}–#${b[1] + 1}) lies outside its topic's messages (#${a[0] + 1}–#${a[1] + 1})`, 'Link the timeline to the topic it was told in.');
  }

  private checkCausal(chain: ExtractedChain, cluster: TopicCluster | undefined, add: (issue: string, suggestion: string) => void): void {
    const at = (roles: string[]) => chain.nodes.map((n, i) => ({ n, i, p: this.position(n) ?? i })).filter((x) => roles.includes(x.n.role));
    const causes = at(['cause']);
    const outcomes = at(['solution', 'effect']);
    const problems = at(['problem']);
    const solutions = at(['solution']);
    const firstCause = causes[0];
    const lastOutcome = outcomes[outcomes.length - 1];
    if (firstCause && lastOutcome && (lastOutcome.p < firstCause.p || lastOutcome.i < firstCause.i)) {
      add(`the ${lastOutcome.n.role} ("${brief(lastOutcome.n.text)}") comes before its cause ("${brief(firstCause.n.text)}")`, 'A cause must precede its effect and its solution: re-extract the chain or swap the roles.');
    }
    const firstProblem = problems[0];
    const firstSolution = solutions[0];
    if (firstProblem && firstSolution && (firstSolution.p < firstProblem.p || firstSolution.i < firstProblem.i)) {
      add(`the solution ("${brief(firstSolution.n.text)}") comes before the problem ("${brief(firstProblem.n.text)}")`, 'A solution answers a problem stated earlier: check the roles.');
    }
    if (cluster && cluster.keywords.length > 0) {
      const terms = new Set(wordTerms(chain.content));
      const shared = cluster.keywords.filter((k) => {
        const t = wordTerms(k);
        return t.length > 0 && t.every((x) => terms.has(x));
      });
      if (shared.length === 0) add(`the causal chain shares no keyword with its topic "${cluster.topic_label}"`, 'Link the chain to the topic it explains, or drop the link.');
    }
  }

  private checkLogic(chain: ExtractedChain, add: (issue: string, suggestion: string) => void): void {
    const first = chain.nodes[0];
    const last = chain.nodes[chain.nodes.length - 1];
    if (first && first.role !== 'premise') add(`the argument starts with a ${first.role}, not a premise`, 'Start the chain at the premise it reasons from.');
    if (last && last.role !== 'conclusion') add(`the argument ends with a ${last.role}, not a conclusion`, 'Mark where the reasoning lands, or the chain is unfinished.');
    if (first && last && first !== last && norm(first.text) === norm(last.text)) add('the conclusion repeats the premise', 'A circular argument: drop the chain or find the real conclusion.');
  }
}

function brief(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 40 ? `${flat.slice(0, 39)}…` : flat;
}

function norm(text: string): string {
  return text.toLowerCase().replace(/[\s\p{P}]+/gu, '');
}

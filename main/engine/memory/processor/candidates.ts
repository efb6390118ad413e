/**
 * Memory candidates from an analysis (the spec's long-term memory kinds plus the categories of its
 * summarizer example, docs/SPEC.md#long-term-memory), proposed to the MemoryStore, which
 * deduplicates and merges them. Nothing is proposed unless the trigger said COORDINATED_EXTRACTION.
 *
 * Rules (each candidate keeps the message ids it came from and a confidence in 0..1):
 * - procedural: one per OPERATION chain (its steps, numbered).
 * - narrative: one per NARRATIVE or TIME chain (its events or moments in order).
 * - semantic: one per CAUSAL or LOGIC chain (problem → cause → solution, premise → conclusion),
 *   and one per extraction-candidate cluster whose dominant bucket is DECISION_CONTEXT (its most
 *   relevant decision items).
 * - event: one per sentence of a NARRATIVE or TIME chain whose time resolved to a calendar date
 *   ("2024-05-02", "2024-05-02T15:00"; not "last year").
 * - preference: a user's USER_INTENT item with a preference cue (English or Chinese, below).
 * - profile: a user's item that describes the user ("I work as…", "my name is…", "我是…", "我叫…").
 * - entity: a user's item naming something of theirs ("my cat Mimi", "我家的猫叫咪咪").
 *
 * Confidence: a chain's extraction confidence × its validation confidence; a decision cluster's
 * ½·coherence + ½·avg_relevance; 0.7 for a strong preference cue ("prefer", "favourite", "喜欢",
 * "偏好"), 0.55 for a weak one ("I want", "希望"); 0.6 for profile and entity statements.
 * Candidates under MIN_CONFIDENCE are left out. Candidates of one category with the same content
 * are merged (message ids joined, the higher confidence kept).
 */
import type { ExtractedChain, MemoryCategory, MemoryItem, SessionAnalysis, TopicCluster } from '../../../../shared/types/memory.js';
import { flatText, shorten } from '../chains/build-chain.js';
import { isPastEvent } from '../chains/extract-narrative.js';
import { STEP_NUMBER } from '../chains/extract-operation.js';
import { isoMillis } from '../chains/time-expressions.js';
import { calibrateMemory, commitGate, type MemoryKind } from '../fusion/calibration.js';
import type { MemoryCandidate } from '../long-term/types.js';

export const MIN_CONFIDENCE = 0.3;
const KEYWORDS = 6;
const DECISION_ITEMS = 3;

const STRONG_PREFERENCE = [
  /\b(?:i|we) (?:really )?(?:prefer|love|like|enjoy|hate|dislike|can'?t stand)\b/i,
  /\b(?:i|we)'?d (?:rather|prefer)\b|\b(?:i|we) would (?:rather|prefer)\b/i,
  /\bmy (?:favou?rite|preference)\b|\bpreferably\b/i,
  /\b(?:i|we) (?:don'?t|do not) (?:like|want|enjoy)\b/i,
  /\balways (?:use|give|show|answer|write)\b|\bnever (?:use|give|show|send)\b/i,
  /喜欢|偏好|偏爱|宁愿|宁可|讨厌|最爱|受不了|习惯(?:用|于)/u,
];
const WEAK_PREFERENCE = [/\b(?:i|we)'?d like\b|\b(?:i|we) (?:want|wish|hope)\b|\bideally\b/i, /我想要|希望|最好|不想|别太/u];

const PROFILE = [
  /\bmy name is\b|\bi(?:'m| am) called\b/i,
  /\bi work (?:as|at|for|in)\b|\bi(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b|big fan\b)[a-z-]+ (?:developer|engineer|teacher|student|designer|manager|analyst|doctor|nurse|writer|researcher|scientist)\b/i,
  /\bi live in\b|\bi(?:'m| am) from\b|\bi(?:'m| am) \d{1,2} years old\b/i,
  /我叫|我的名字是|我是(?:一名|一个)?[\p{Script=Han}]{0,6}(?:工程师|老师|学生|设计师|经理|医生|护士|程序员|研究员)|我在[\p{Script=Han}\w]{1,12}(?:工作|上班|读书|上学)|我住在|我来自/u,
];
const ENTITY_EN = /\b[Mm]y (cat|dog|wife|husband|partner|son|daughter|mother|father|mom|dad|sister|brother|boss|manager|team|company|project|startup|car)(?:'s name is| is called| is named| named| called)? ([A-Z][\w-]+)/;
const ENTITY_ZH = /我(?:的|家的?)(猫|狗|女儿|儿子|老婆|老公|妈妈|爸爸|哥哥|姐姐|弟弟|妹妹|老板|公司|项目)叫([\p{Script=Han}A-Za-z]{1,6})/u;

/** A chain below this (calibrated) confidence is shown in the analysis but never committed automatically. */
export const MIN_CHAIN_CONFIDENCE = 0.5;
/**
 * A candidate below this (calibrated) confidence is proposed for review, not committed
 * automatically, whatever its kind's gate (fusion/calibration.ts `commit`, fitted on the tune half).
 */
export const AUTO_COMMIT_CONFIDENCE = 0.6;

const DECISION = [
  /\b(?:i|we) (?:decided|chose|picked|settled on|agreed)\b|\blet'?s (?:go with|use|pick|stick with|do)\b|\b(?:we|i)(?:'ll| will) (?:go with|use|ship|keep|stick with|book|start with)\b|\bagreed,|\b(?:i|we) (?:plan|intend) to\b/i,
  // 打算/准备 with a first-person subject: an intention the speaker states ("我打算…", "我们准备…").
  /决定|就这么定|那就|就用|就选|定了|我们?(?:打算|准备)/u,
];

/** A candidate with its rule score and whether a commit may store it without a person's review. */
export interface ProposedMemory {
  candidate: MemoryCandidate;
  /** The rules' own score, before calibration (what fusion/calibration.ts is fitted on). */
  score: number;
  /** Which rule made it ("semantic/LOGIC", "semantic/decision", …): its calibration table. */
  kind: MemoryKind;
  autoCommit: boolean;
}

/** What a commit stores automatically: the proposed candidates that may be committed without review. */
export function deriveMemoryCandidates(analysis: SessionAnalysis): MemoryCandidate[] {
  return proposeMemoryCandidates(analysis)
    .filter((p) => p.autoCommit)
    .map((p) => p.candidate);
}

/**
 * Every candidate of the analysis, each with a calibrated confidence (its category's measured
 * precision at its rule score) and whether it may be committed automatically: not when it
 * comes only from chains below MIN_CHAIN_CONFIDENCE, nor below its kind's gate or AUTO_COMMIT_CONFIDENCE.
 */
export function proposeMemoryCandidates(analysis: SessionAnalysis): ProposedMemory[] {
  if (analysis.trigger.action !== 'COORDINATED_EXTRACTION') return [];
  const context = new Context(analysis);
  const candidates: MemoryCandidate[] = [];
  const dated = new Set<string>();
  const chainMade = new Set<MemoryCandidate>();
  const kinds = new Map<MemoryCandidate, MemoryKind>();
  for (const chain of analysis.chains) {
    const base = context.chainBase(chain);
    const before = candidates.length;
    switch (chain.chain_type) {
      case 'OPERATION':
        candidates.push({ ...base, category: 'procedural', title: labelled('howTo', titleFrom(chain.nodes.map((n) => n.text), 70)), content: chain.nodes.map((n, i) => `${i + 1}. ${n.text.trim().replace(LEADING_LIST_MARK, '')}${n.role === 'result' ? ' (result)' : ''}`).join('\n') });
        break;
      case 'NARRATIVE':
      case 'TIME':
        candidates.push({ ...base, category: 'narrative', title: labelled(chain.chain_type === 'TIME' ? 'timeline' : 'story', titleFrom(chain.nodes.map((n) => n.text), 70)), content: chain.nodes.map((n) => `- ${n.time ? `${n.time}: ` : ''}${n.text.trim()}`).join('\n') });
        for (const node of chain.nodes) {
          // Only nodes resolved to a calendar date ("2024-05-02", not "last year"), one event per sentence.
          if (isoMillis(node.time) === undefined || dated.has(node.text)) continue;
          dated.add(node.text);
          candidates.push({ ...base, category: 'event', title: `${node.time}: ${titleFrom([node.text], 60)}`, content: `${node.text.trim()} (${node.time})`, message_ids: [...node.message_ids] });
        }
        break;
      case 'CAUSAL':
      case 'LOGIC':
        candidates.push({ ...base, category: 'semantic', title: labelled(chain.chain_type === 'CAUSAL' ? 'why' : 'reasoning', titleFrom(chain.nodes.map((n) => n.text), 70)), content: chain.nodes.map((n) => `${n.role}: ${n.text.trim()}`).join('\n') });
        break;
    }
    for (const made of candidates.slice(before)) {
      chainMade.add(made);
      kinds.set(made, made.category === 'semantic' || made.category === 'narrative' ? `${made.category}/${chain.chain_type}${isEpisode(chain) ? '-episode' : ''}` : made.category);
    }
  }
  for (const cluster of analysis.clusters) {
    if (cluster.dominant_bucket !== 'DECISION_CONTEXT' || !cluster.extraction_candidate) continue;
    const items = cluster.items.filter((i) => i.bucket === 'DECISION_CONTEXT').sort((a, b) => b.relevance - a.relevance).slice(0, DECISION_ITEMS);
    if (items.length === 0) continue;
    const made: MemoryCandidate = {
      category: 'semantic',
      // Titled by what was decided, not by the topic's keywords (a label such as "timeout / statement / s3" says nothing).
      title: labelled('decision', titleFrom(items.map((i) => i.text), 70)),
      content: items.map((i) => `- ${i.text.trim()}`).join('\n'),
      keywords: cluster.keywords.slice(0, KEYWORDS),
      message_ids: unique(items.flatMap((i) => i.message_ids)),
      conversation_id: analysis.conversation_id,
      cluster_ids: [cluster.cluster_id],
      chain_ids: cluster.related_chains,
      confidence: round(0.5 * cluster.coherence + 0.5 * cluster.avg_relevance),
    };
    candidates.push(made);
    kinds.set(made, 'semantic/decision-topic');
  }
  const userItems = Object.values(analysis.buckets).flat().filter((i) => i.role === 'user');
  for (const item of userItems) {
    // A choice the user states ("We decided to keep max at 20", "那就十二月二十日截止"), not asks about.
    if (DECISION.some((p) => p.test(item.text)) && !/[?？]\s*$/.test(item.text.trim())) {
      const made = context.itemCandidate(item, 'semantic', labelled('decision', titleFrom([item.text], 70)), 0.6);
      candidates.push(made);
      kinds.set(made, 'semantic/decision');
    }
    const cue = item.bucket === 'USER_INTENT' ? preferenceStrength(item.text) : 0;
    if (cue > 0) candidates.push(context.itemCandidate(item, 'preference', titleFrom([item.text], 80), cue));
    if (PROFILE.some((p) => p.test(item.text))) candidates.push(context.itemCandidate(item, 'profile', titleFrom([item.text], 80), 0.6));
    const entity = ENTITY_EN.exec(item.text) ?? ENTITY_ZH.exec(item.text);
    if (entity) candidates.push(context.itemCandidate(item, 'entity', `${entity[1]}: ${entity[2]}`, 0.6));
  }
  const kept = candidates.filter((c) => c.confidence >= MIN_CONFIDENCE && c.message_ids.length > 0 && c.content.trim().length > 0);
  // Candidates made from a chain below MIN_CHAIN_CONFIDENCE; one that merges with a candidate from elsewhere is not.
  const weak = new Set(kept.filter((c) => c.chain_ids?.length === 1 && context.chainIsWeak(c.chain_ids[0] as string) && chainMade.has(c)));
  return merge(kept, (seen, other) => {
    if (!weak.has(other)) weak.delete(seen);
  }).map((candidate) => {
    const score = candidate.confidence;
    const kind = kinds.get(candidate) ?? candidate.category;
    const confidence = round(calibrateMemory(kind, score));
    const gate = commitGate(kind);
    return { candidate: { ...candidate, confidence }, score, kind, autoCommit: gate !== undefined && confidence >= Math.max(gate, AUTO_COMMIT_CONFIDENCE) && !weak.has(candidate) };
  });
}

/**
 * A CAUSAL chain that only tells why something once happened ("I got paged at 3 a.m. because the
 * export had filled the disk"): a cause and an effect, no problem to fix or fix, one step an event
 * of the past. It belongs to the story it came from; as a fact it is rarely worth keeping, so it
 * has its own calibration kind ("semantic/CAUSAL-episode").
 */
function isEpisode(chain: ExtractedChain): boolean {
  return chain.chain_type === 'CAUSAL' && chain.nodes.every((n) => n.role === 'cause' || n.role === 'effect') && chain.nodes.some((n) => isPastEvent(n.text) || ONE_OFF_TIME.test(n.text));
}

// A time that places what a cause explains once in the past ("Once, on Tuesday, because…",
// "上个月隔壁组就是因为…", "去年的拓展训练…"): the explanation of an occasion, not of how things work.
const ONE_OFF_TIME = /\b(?:once|last (?:week|month|year|time)|the other day|(?:a|two|three|few) (?:days|weeks|months|years) ago)\b|上个?月|上周|上次|去年|前年|那次|当时/i;

/** 0.7 for a strong preference cue, 0.55 for a weak one, 0 for none (or when it is someone else's). */
export function preferenceStrength(text: string): number {
  // Some occurrence of a cue must be the speaker's ("我觉得她会喜欢，但我更喜欢红色的" has one).
  const cue = (patterns: RegExp[]) => patterns.some((p) => [...text.matchAll(new RegExp(p.source, `${p.flags}g`))].some((m) => !someoneElses(text, m.index)));
  if (cue(STRONG_PREFERENCE)) return 0.7;
  if (cue(WEAK_PREFERENCE)) return 0.55;
  return 0;
}

/**
 * Whether the preference cue at `index` is a third person's: in Chinese the subject comes before
 * the verb, and the nearest personal pronoun before the cue in its clause names whose it is
 * ("她一直很喜欢" is hers; "我爸喜欢拍照" and "我觉得…" stay the speaker's). English cues carry their "I"/"we".
 */
function someoneElses(text: string, index: number): boolean {
  const clause = text.slice(0, index).split(/[,，;；。！？!?]/u).pop() ?? '';
  const pronouns = clause.match(/[我咱他她它]/gu);
  return pronouns !== null && /[他她它]/u.test(pronouns[pronouns.length - 1] as string);
}

class Context {
  private readonly validation = new Map<string, number>();
  private readonly linked = new Map<string, TopicCluster[]>();
  private readonly clusterOfMessage = new Map<string, TopicCluster>();

  constructor(private readonly analysis: SessionAnalysis) {
    for (const v of analysis.validations) if (v.chain_id) this.validation.set(v.chain_id, Math.min(this.validation.get(v.chain_id) ?? 1, v.confidence));
    const byId = new Map(analysis.clusters.map((c) => [c.cluster_id, c]));
    for (const link of [...analysis.links].sort((a, b) => b.strength - a.strength)) {
      const cluster = byId.get(link.cluster_id);
      if (!cluster) continue;
      const list = this.linked.get(link.chain_id) ?? [];
      list.push(cluster);
      this.linked.set(link.chain_id, list);
    }
    for (const cluster of analysis.clusters) for (const item of cluster.items) for (const id of item.message_ids) this.clusterOfMessage.set(id, cluster);
  }

  chainIsWeak(chainId: string): boolean {
    const chain = this.analysis.chains.find((c) => c.chain_id === chainId);
    return chain !== undefined && chain.extraction_confidence < MIN_CHAIN_CONFIDENCE;
  }

  chainBase(chain: ExtractedChain): Omit<MemoryCandidate, 'category' | 'title' | 'content'> {
    const clusters = this.linked.get(chain.chain_id) ?? [];
    // Keywords come from track A (readable TF-IDF terms): the linked topics, else the topics of the chain's messages.
    const topics = clusters.length > 0 ? clusters : unique(chain.source_message_ids.map((id) => this.clusterOfMessage.get(id)).filter((c): c is TopicCluster => c !== undefined));
    return {
      keywords: unique(topics.flatMap((c) => c.keywords)).slice(0, KEYWORDS),
      message_ids: [...chain.source_message_ids],
      conversation_id: this.analysis.conversation_id,
      chain_ids: [chain.chain_id],
      cluster_ids: clusters.map((c) => c.cluster_id),
      confidence: round(chain.extraction_confidence * (this.validation.get(chain.chain_id) ?? 1)),
    };
  }

  itemCandidate(item: MemoryItem, category: MemoryCategory, title: string, confidence: number): MemoryCandidate {
    const cluster = this.clusterOfMessage.get(item.message_ids[0] as string);
    return {
      category,
      title,
      content: item.text.trim(),
      keywords: item.keywords.slice(0, KEYWORDS),
      message_ids: [...item.message_ids],
      conversation_id: this.analysis.conversation_id,
      ...(cluster ? { cluster_ids: [cluster.cluster_id] } : {}),
      confidence,
    };
  }
}

function merge(candidates: MemoryCandidate[], onMerge: (kept: MemoryCandidate, merged: MemoryCandidate) => void): MemoryCandidate[] {
  const byKey = new Map<string, MemoryCandidate>();
  for (const c of candidates) {
    const key = `${c.category}\u0000${c.content.toLowerCase().replace(/\s+/g, ' ').trim()}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, c);
      continue;
    }
    seen.message_ids = unique([...seen.message_ids, ...c.message_ids]);
    seen.chain_ids = unique([...(seen.chain_ids ?? []), ...(c.chain_ids ?? [])]);
    seen.cluster_ids = unique([...(seen.cluster_ids ?? []), ...(c.cluster_ids ?? [])]);
    seen.confidence = Math.max(seen.confidence, c.confidence);
    onMerge(seen, c);
  }
  return [...byKey.values()];
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

// A list number or bullet that opens a step ("1.", "- ", "Step 2:", "第二步："): a procedure's memory numbers its steps itself.
const LIST_MARK = `[-*•]|(?:${STEP_NUMBER})[:：，,]?`;
const LEADING_LIST_MARK = new RegExp(`^\\s*(?:${LIST_MARK})\\s*`, 'iu');
// List marks and clock times that open a step ("1.", "(15:42)", "第二步："): not a title.
const LEADING_MARKS = new RegExp(`^(?:\\s*(?:${LIST_MARK}|\\(?\\d{1,2}[:.]\\d{2}\\)?)\\s*)+`, 'iu');

// A connective that ties a step to the one before ("so we pushed…", "and production on Friday…",
// "Because each entry…", "所以…", "那就…"): it reads as a fragment at the head of a title, and
// "Why:" already says "because". So does an answer's first word ("Yes! I'll start…", "好，那就…"),
// when punctuation sets it apart ("Sure enough…", "好看" keep theirs).
const LEADING_CONNECTIVE =
  /^(?:(?:and|but|so|because|since|then|also|or|well|ok(?:ay)?)\b[,\s]*|(?:yes|yeah|yep|sure|oh|right|great|perfect|alright|agreed|fine|cool)[!,.]+\s*|(?:所以|因为|然后|而且|但是|不过|另外|那就|那么)[，,\s]*|(?:好的|好吧|好|行|嗯|对|可以|没问题)[，,！!。]+\s*)/iu;
// Where a long sentence may be cut whole: after a clause ("…evicts, so…", "…；…").
const CLAUSE_END = /[,;:，；：、—–](?=\s|\p{Script=Han}|$)/gu;

/**
 * A memory's title: the first of `texts` that says something in words (a step that is only a
 * number or a time is skipped), without its list number or a leading connective, on one line; longer than `width`, its first clause or clauses when they fill at least
 * half of it, else cut after a whole word (shorten). Never a fragment of a word, a bare number or a label.
 */
/**
 * What kind of memory a title heads, in the language of its text: a Chinese memory reads
 * "决定：…", not "Decision: …" (the category chip says semantic; this says which kind).
 */
const TITLE_LABELS = {
  why: ['Why', '原因'],
  reasoning: ['Reasoning', '推理'],
  howTo: ['How to', '做法'],
  story: ['Story', '经历'],
  timeline: ['Timeline', '时间线'],
  decision: ['Decision', '决定'],
} as const;

export function labelled(kind: keyof typeof TITLE_LABELS, body: string): string {
  const [en, zh] = TITLE_LABELS[kind];
  return isChinese(body) ? `${zh}：${body}` : `${en}: ${body}`;
}

/** Whether a text is written in Chinese: a third of its letters or more are Han characters. */
function isChinese(text: string): boolean {
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  return letters > 0 && han / letters >= 0.3;
}

export function titleFrom(texts: string[], width: number): string {
  for (const text of texts) {
    let body = flatText(text.replace(LEADING_MARKS, '')).trim();
    // ("OK, so we…", "好，那就…": one after the other.)
    let unbound = body;
    for (let i = 0; i < 3 && LEADING_CONNECTIVE.test(unbound); i++) unbound = unbound.replace(LEADING_CONNECTIVE, '');
    // The sentence now starts where the connective ended: with a capital ("so we pushed" → "We pushed"),
    // where a text that opens lower-case on its own ("npm install failed") keeps its case.
    if (unbound !== body && (unbound.match(/\p{L}/gu)?.length ?? 0) >= 2) body = unbound.replace(/^\p{Ll}/u, (first) => first.toUpperCase());
    if ((body.match(/\p{L}/gu)?.length ?? 0) < 2) continue;
    // A Han character takes two columns and says about as much as a short word: a Chinese title of
    // `width` characters ran to a whole sentence ("原因：到关西机场已经是当地时间下午五点了，原本订的…").
    return fitTitle(body, isChinese(body) ? Math.ceil(width / 2) : width).replace(/[\s,，、;；:：]+$/u, '');
  }
  return shorten(texts[0] ?? '', width);
}

/** `text` whole when it fits; else its leading clauses when they fill half of `width`; else cut after a word. */
function fitTitle(text: string, width: number): string {
  if ([...text].length <= width) return text;
  let clauses = '';
  for (const end of text.matchAll(CLAUSE_END)) {
    if ([...text.slice(0, end.index)].length > width) break;
    clauses = text.slice(0, end.index);
  }
  return [...clauses].length >= width / 2 ? clauses : shorten(text, width);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

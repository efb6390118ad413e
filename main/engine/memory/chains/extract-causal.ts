/**
 * CAUSAL chains: problem → cause → solution/effect. A chain is anchored on a sentence with a
 * cause marker ("because", "due to", "caused by", "因为", "由于", "导致", "原因是"). Around it:
 * - the sentence itself may hold two steps ("A because B", "B，导致A", "由于B，A"), split where the
 *   marker opens a clause, never inside one (a step is a whole clause of its message);
 * - the problem is the nearest earlier sentence with a problem word, within a few messages (the
 *   user's only, when the sentence already names its effect);
 * - the solution is the nearest later sentence with a fix marker, when there is a problem to fix,
 *   and an effect the other speaker's report of how it went.
 * A second cause for a problem whose chain has no solution yet joins that chain. Conditionals are
 * LOGIC's ("If A, B"), unless a result clause makes them a mechanism ("If A, B, so C"): then they
 * are CAUSAL's alone, and a mechanism that may never happen takes no problem from earlier messages.
 */
import type { ExtractedChain } from '../../../../shared/types/memory.js';
import { chainFromSteps, type Step } from './build-chain.js';
import { IMPERATIVE, isInstruction } from './extract-operation.js';
import { CONDITIONAL, type Unit } from './text-units.js';

/** How many messages back a problem, and forward a solution, may be from the cause. */
const WINDOW_MESSAGES = 4;
/** How far back a problem the user stated may be: the user's complaint is what a fix answers; further back is another topic. */
const USER_PROBLEM_WINDOW = 6;
/**
 * How many messages after the solution a report of its effect may come: the person applies the
 * fix, says so, waits and then reports ("Pooled transport is live." … "The queue went from 48,000
 * to 3,000 and the 421 errors are gone."), as far back as a complaint may be (USER_PROBLEM_WINDOW).
 */
const REPORT_WINDOW = USER_PROBLEM_WINDOW;

/** A clause of result after a comma: ", so …", "，所以…" (not "so that", a purpose). */
export const RESULT_CLAUSE = /[,，]\s*(?:so\b(?!\s+(?:that|we can|you can|i can|it can))|所以)/i;

/**
 * "If A, B, so C": a condition whose result clause tells a mechanism, A brings about C. It is
 * CAUSAL's alone; LOGIC leaves it (one sentence, one chain: it is not also an argument).
 */
export function isMechanism(sentence: string): boolean {
  return CONDITIONAL.test(sentence) && RESULT_CLAUSE.test(sentence);
}
// What a speaker infers rather than what happened: a modal of belief or necessity ("it must be",
// "you'd make it", "应该会", "肯定"); "I should", "we will", "我应该" decide what to do instead. A result clause with one ("…, so the column must be what
// slowed it down") concludes an argument (LOGIC's), it does not report an effect.
export const EPISTEMIC = /\b(?:must|can't|cannot|has to|ought to|is bound to)\b|(?<!\b(?:i|we|you)\s)\b(?:should|will|would)\b|\b(?:you|we|it|that|they)'d\b|(?<![我你]|[我你]们)应该|肯定|一定|必然|想必/i;
// A conclusion that judges rather than reports: enough, safe, worth it, better, not expensive
// ("…, so a third consumer is safe", "…，所以一台也够", "…，所以第三家其实不算贵"). It is drawn from
// what comes before (LOGIC's), not brought about by it.
export const JUDGEMENT = /\b(?:is|are|was|were|'s|be|'re)\s+(?:still\s+|also\s+|not\s+|then\s+)?(?:safe|enough|fine|worth|cheaper|better|the better|a good|good enough|unlikely|too (?:much|many|few|little|late|early|long|short|expensive))\b|\bworth it\b|\b(?:no|not) (?:need|necessary)\b|够|值得|不算|没必要|不必|划算|来得及|来不及|可以排除/i;
// What a fact means or implies ("…, so a late import means a morning of wrong figures"): an inference
// drawn from it (LOGIC's), not an effect it brings about.
export const INFERS = /\b(?:means|meant|implies|implied)\b|意味着/i;
// A judgement on evidence ("That matches X, because…", "这说明…"): "because" gives the reason for
// the judgement, not the cause of an event.
const EVIDENTIAL = /^\W*(?:that|this|which|it)(?:'s| is)?\s+(?:matches|explains|fits|confirms|shows|suggests|means|makes sense)\b|^\W*(?:这|那)(?:就)?(?:说明|解释了|符合|印证了)/i;
// Backward markers: the cause comes after the marker and explains what precedes it.
// A clause that adds one more reason ("and because…", "or since…", "也因为…").
const COORDINATED_CAUSE = /^(?:(?:and|or)\s+(?:also\s+)?(?:because|since)\b|(?:也|还|又|同时)(?:是)?因为)/i;
// A hedge before the marker ("probably because", "partly due to") is the cause clause's own word.
export const CAUSE_BACKWARD = /\b(?:(?:probably|likely|possibly|perhaps|maybe|partly|mainly|mostly|largely|simply|just|only)\s+)?(?:because(?: of)?|due to|caused by|(?:the )?(?:root )?cause (?:is|was)|the reason (?:is|was)|thanks to|owing to)\b|是因为|因为|由于|原因是|原因在于|源于/i;
// Forward markers: what precedes is the cause, what follows its effect.
// ", so" and "，所以" inside a sentence join a cause to its effect; at a sentence start they conclude (LOGIC).
// "so that", "so we can" and "以便/为了" state a purpose (what someone wants), not a cause.
// "A，结果B" / "A, and as a result B" tell what A brought about (a clause of its own, like "so").
const CAUSE_FORWARD = /\b(?:led to|leads to|lead to|resulted in|results in|caused|causes)\b|[,，]\s*(?:so\b(?!\s+(?:that|we can|you can|i can|it can))|所以|结果(?!是)|(?:and )?as a result\b)|导致|造成|引起|害得/i;
const EFFECT_MARKER = /(?:,|，)?\s*(?:\b(?:so(?!\s+that)|therefore|as a result|which is why|that's why|hence)\b|所以|因此|于是|结果|就)/i;
const EFFECT_LEAD = new RegExp(`^${EFFECT_MARKER.source}`, 'i');
// A sentence that reports where things stand ("Error rate is back to 0.1%", "no errors since",
// "恢复正常") names a problem word without stating a problem.
const STATUS_REPORT = /\b(?:is|are|was|were|'s|has|have)\s+(?:now\s+|finally\s+)?(?:back|steady|stable|flat|fine|normal|ok|okay)\b|\bback to (?:normal|\d)|\b(?:down|dropped|fell) to \d|\b(?:no|zero|0)\s+(?:more\s+|new\s+)?(?:errors?|failures?|timeouts?|crash(?:es)?|issues?|problems?)\b|\bwithout (?:any )?(?:errors?|failures?|issues?)\b|恢复正常|回到|降到|没有(?:再)?(?:报错|错误|超时|问题)|一切正常/i;
const PROBLEM = /\b(?:errors?|exceptions?|fail(?:s|ed|ing|ure)?|crash(?:es|ed|ing)?|leak(?:s|ing)?|bugs?|broken|(?:doesn't|does not|isn't|is not) work(?:ing)?|problems?|issues?|slow(?:er)?|stuck|hang(?:s|ing)?|time[ds]? ?out|timing out|blocked|OOM|out of memory|running out|late|delay(?:ed)?|locked|wrong|sick|fever|reject(?:s|ed|ing|ions?)?)\b|问题|报错|错误|失败|崩溃|泄漏|泄露|卡住|卡顿|很慢|变慢|太慢|糊|不对|异常|延误|晚点|错过|没赶上|挂了|超时|发烧|生病|拒收|被拒/i;
export const SOLUTION = /\b(?:the fix (?:is|was)|to fix|fix(?:ed)? (?:it|that|this)|the solution|solved|resolved|workaround|you (?:should|need to|can)|(?:I|we) (?:added|changed|switched|replaced|removed|moved|fixed)|use an?|(?<!\b(?:the|a|this|that) )switch(?:ed)? to|replac(?:e|ed)|instead)\b|解决|修复|改成|换成|办法|应该|建议|要用|只好/i;
// What will happen, or what to do, on a later occasion ("Then next time the export fails, you'll get an
// error…", "那下次…", "说下次订包间不用交定金"): a prediction or a plan, not the fix of the trouble at hand.
export const NEXT_TIME = /\bnext time\b|下次|下回/i;
// The outcome of a fix, reported afterwards ("works now", "好多了").
const EFFECT_REPORT = /\b(?:works now|it worked|that worked|went away|disappeared|(?:is|are) gone|stayed flat|no longer)\b|好多了|好了|解决了|成功了|没有再|不再/i;

interface Anchor {
  unit: Unit;
  steps: Step[];
  /** Anchored on ", so"/"，所以" only. */
  weak?: boolean;
}

const QUESTION = /[?？]\s*$/;
// "既然A，就B" argues from a premise (LOGIC's): a "因为" inside A ("既然这次你们因为延误错过了特急，下次…")
// is part of that premise, and the trouble it restates is no problem of its own; nor is the trouble a
// condition supposes ("如果一定要九月去，那么最好买含航班延误赔付的旅游保险").
const GIVEN = /^[\s\p{P}]*既然/u;
const DOUBT = /\b(?:not sure|unsure|don'?t know|do not know|no idea|wonder) (?:if|whether)\b|不确定|不知道(?:会不会|能不能|是不是)/i;
const REASON_REFUSED = /(?:不要|别|不能|不必|不用|不该)(?:只|仅仅)?(?:是)?因为|\b(?:don'?t|do not|never)\b[^.;]*\bjust because\b|\bnot just because\b/i;
const HYPOTHETICAL_REASON = /\b(?:because|since)\s+(?:if|unless|in case)\b|(?:因为|由于)(?:如果|要是|万一|假如)/i;

export function extractCausal(units: Unit[], createdAt: string): ExtractedChain[] {
  const chains: { problem?: Unit; steps: Step[]; solved: boolean }[] = [];
  for (let i = 0; i < units.length; i += 1) {
    // "If the membrane is torn, it costs more because…" explains what would happen: a hypothetical
    // is an argument (LOGIC), not the cause of something that happened. "If A, B, so C" is causal:
    // its result clause ("so"/"所以") tells a mechanism, A brings about C.
    const conditional = CONDITIONAL.test((units[i] as Unit).text);
    // "What caused the missing PDF?" asks for the cause; the answer gives it.
    if (QUESTION.test((units[i] as Unit).text)) continue;
    if ((conditional && !RESULT_CLAUSE.test((units[i] as Unit).text)) || EVIDENTIAL.test((units[i] as Unit).text) || GIVEN.test((units[i] as Unit).text)) continue;
    // "Because if the import dies halfway…, the next run would…": the reason is a hypothetical, an argument (LOGIC's).
    if (HYPOTHETICAL_REASON.test((units[i] as Unit).text)) continue;
    // "不要因为赶优惠就跳过试驾", "Don't skip it just because it's cheaper": advice against a reason, nothing it caused.
    if (REASON_REFUSED.test((units[i] as Unit).text)) continue;
    // "I'm not sure if we'll get more this year, because…": the reason for a doubt, no cause of an event.
    if (DOUBT.test((units[i] as Unit).text)) continue;
    const anchor = splitAnchor(units[i] as Unit);
    if (!anchor || (conditional && anchor.steps.length < 2)) continue;
    // "Drop it once you're sure, because every extra index slows down writes": the clause the
    // reason explains is what to do (a solution), not an effect that happened.
    for (const step of anchor.steps) if (step.role !== 'cause' && isInstruction(step.text)) step.role = 'solution';
    const ownProblem = anchor.steps[0]?.role === 'problem';
    // A sentence that links its cause to the effect it names explains itself: only the user's own
    // complaint joins it as its problem, not a guess another speaker made on the way.
    const selfContained = anchor.steps.some((s) => s.role === 'effect');
    // A mechanism told as a condition ("If it rains, the path gets muddy, so…") explains what would
    // happen: no trouble someone reported earlier is its problem.
    // An answer to the other speaker's question about something else ("第二天顺利吗？" / "…因为去得早，人特别少";
    // "最低消费够吗？" / "…超了四百，因为加了两瓶酒") explains the effect it names: the trouble told
    // before the question belongs to another event.
    const answersOther = selfContained && answersQuestionOnOther(units, i);
    const problem = conditional || answersOther ? undefined : findProblem(units, i, ownProblem || selfContained);
    // ", so" joins many clauses that are not about trouble ("we run 4 instances, so 80 is well
    // under", "I prefer X, so I'll put it first"): it is a cause only in a sentence about trouble.
    if (anchor.weak && !conditional && !isProblem(anchor.unit.text)) continue;
    // "A, so B must be…" infers B from A, "A, so B is enough" judges B by A: LOGIC's chain, not a cause and its effect.
    const result = anchor.steps[anchor.steps.length - 1]?.text ?? '';
    if (anchor.weak && !conditional && (EPISTEMIC.test(result) || JUDGEMENT.test(result) || INFERS.test(result))) continue;
    // "Generate the number in the same transaction, so a failed send never burns a number": an
    // instruction and what it is for (a purpose), not a cause and its effect.
    if (anchor.weak && isInstruction(anchor.steps[0]?.text ?? '')) continue;
    // A solution answers a problem: an explanation of something that is no trouble ("a lower
    // setting saves more, because…") takes no fix from the messages after it.
    const solutionIndex = ownProblem || problem ? findSolution(units, i) : undefined;
    const open = problem ? chains.find((c) => c.problem === problem && !c.solved) : undefined;
    const target = open ?? { problem, steps: problem ? [{ role: 'problem', text: problem.text, unit: problem }] : [], solved: false };
    for (const step of anchor.steps) if (!target.steps.some((s) => s.unit === step.unit && s.role === step.role)) target.steps.push(step);
    if (solutionIndex !== undefined) {
      const unit = units[solutionIndex] as Unit;
      if (!target.steps.some((s) => s.unit === unit)) target.steps.push({ role: 'solution', text: unit.text, unit, marker: SOLUTION.exec(unit.text)?.[0] });
      target.solved = true;
      const report = findReport(units, solutionIndex);
      if (report && !target.steps.some((s) => s.unit === report)) target.steps.push({ role: 'effect', text: report.text, unit: report, marker: EFFECT_REPORT.exec(report.text)?.[0] });
    } else if (anchor.steps.some((s) => s.role === 'effect')) target.solved = true;
    if (!open) chains.push(target);
  }
  return chains.flatMap((chain) => {
    const steps = chain.steps.sort((a, b) => a.unit.position - b.unit.position || a.unit.sentence - b.unit.sentence);
    const built = chainFromSteps('CAUSAL', steps, { complete: chain.solved }, createdAt);
    return built ? [built] : [];
  });
}

/** The cause sentence as one or two steps, or undefined when it has no cause marker. */
function splitAnchor(unit: Unit): Anchor | undefined {
  const text = unit.text;
  const backward = CAUSE_BACKWARD.exec(text);
  if (backward) {
    const before = text.slice(0, backward.index).replace(/[\s,，:：]+$/, '');
    // "上个月隔壁组就是因为B，A": an adverb before the marker makes what precedes it the cause
    // clause's own subject, not a clause of its own; the sentence reads "because B, A".
    const leading = /[就都也正只还才全]$|(?:主要|可能|大概|多半)$/.test(before);
    const after = leading ? text : text.slice(backward.index);
    const marker = backward[0];
    // "Because B, A" / "因为B，所以A": the cause leads, the effect follows the comma (the one
    // before "so"/"所以" when there is one). An introduction ending in a colon ("The reason is
    // clear: because…", "原因就清楚了：因为…") announces the explanation; it is no part of it.
    const introduced = /[:：]\s*$/.test(text.slice(0, backward.index));
    if (before.length < 4 || /^(?:是)?$/.test(before) || introduced || leading) {
      const head = leading ? backward.index + marker.length : marker.length;
      const rest = after.slice(head);
      const comma = /[,，]\s*(?=(?:so|therefore|hence)\b|所以|因此|于是|结果)/i.exec(rest) ?? /[,，]\s*/.exec(rest);
      if (comma) {
        const cut = head + comma.index;
        // The effect is the rest of the sentence as written, its "so"/"所以" included.
        const effect = after.slice(cut + comma[0].length).trim();
        // "Because of the dough, and because it's where people come in": a second reason joined
        // to the first, not what the first one caused; the sentence is one cause step.
        if (effect.replace(EFFECT_LEAD, '').length >= 4 && !COORDINATED_CAUSE.test(effect)) {
          return { unit, steps: [{ role: 'cause', text: after.slice(0, cut).trim(), unit, marker }, { role: 'effect', text: effect, unit, marker: EFFECT_LEAD.exec(effect)?.[0]?.trim() || marker }] };
        }
      }
      return { unit, steps: [{ role: 'cause', text: introduced ? after.trim() : text, unit, marker }] };
    }
    // "It turned out to be caused by B", "The outage was due to B": the marker completes the verb
    // before it, so the sentence is one clause and one cause step ("It turned out to be" is no step).
    if (!/^(?:(?:\w+\s+)?because|是因为|因为|由于)/i.test(marker) && /\b(?:is|was|were|are|be|been|being)$/i.test(before)) {
      return { unit, steps: [{ role: 'cause', text, unit, marker }] };
    }
    // "The ferry was cancelled because of the swell": "because of", "due to", "thanks to" take a
    // noun, not a clause; cut there, the cause would be a phrase. The sentence is one cause step.
    if (/^(?:(?:\w+\s+)?(?:because of|due to|thanks to|owing to))$/i.test(marker)) {
      return { unit, steps: [{ role: 'cause', text, unit, marker }] };
    }
    // "A because B": A is what B explains: a problem when it states trouble, else an effect
    // ("Latency is back to normal because the pool is bigger" reports an outcome).
    // An effect is listed after its cause, as the chain reads.
    const cause: Step = { role: 'cause', text: after, unit, marker };
    // "那就对上了：回调失败是因为…": what precedes a colon introduces; the clause is what follows it.
    // (A colon of a clock or a port, "18:05", "localhost:3000", introduces nothing.)
    const colon = [...before.matchAll(/：|:(?=\s)/g)].pop()?.index ?? -1;
    const explained = colon >= 0 && before.length - colon > 2 ? before.slice(colon + 1).trim() : before;
    return { unit, steps: isProblem(explained) ? [{ role: 'problem', text: explained, unit, marker }, cause] : [cause, { role: 'effect', text: explained, unit, marker }] };
  }
  const forward = CAUSE_FORWARD.exec(text);
  if (forward && forward.index >= 4) {
    const marker = forward[0].replace(/^[,，]\s*/, '');
    // A step is a whole clause: the sentence is cut only where the marker opens a clause (after a
    // comma: "X，导致Y", "X, so Y"). "The leak led to timeouts" / "熬夜容易导致头疼" is one clause
    // stating cause and effect together: one cause step, which needs a problem or a fix around it.
    const clauseBreak = /[,，;；]\s*$/.test(text.slice(0, forward.index + forward[0].length - marker.length));
    if (!clauseBreak) return { unit, steps: [{ role: 'cause', text, unit, marker }] };
    const effect = text.slice(forward.index + forward[0].length - marker.length).trim();
    if (effect.replace(marker, '').trim().length >= 2) {
      return { unit, weak: marker !== forward[0], steps: [{ role: 'cause', text: text.slice(0, forward.index).replace(/[\s,，;；]+$/, ''), unit, marker }, { role: 'effect', text: effect, unit, marker }] };
    }
  }
  return undefined;
}

// What a clause is for ("so that a slow render never blocks the API", "为了避免重复扣款"):
// trouble it names is what someone wants to avoid, not trouble that happened.
const PURPOSE = /\bso that\b.*$|\bso (?:we|you|it|they|nothing) (?:can|can't|won't|never|don't)\b.*$|\bin case\b.*$|为了[^，,。]*|以免.*$|以防.*$|免得.*$/giu;

/** A statement of trouble: a problem word, not in a question and not in a status report. */
export function isProblem(text: string): boolean {
  // An instruction ("Put the reproduction steps in it, they explain the bug") names trouble without stating it.
  // "takes 11 minutes instead of timing out", "no longer fails": the trouble word names what stopped.
  const stated = text.replace(/\b(?:instead of|rather than|no longer)\s+\S+(?:\s+\S+){0,2}/gi, '').replace(PURPOSE, '');
  return PROBLEM.test(stated) && !/[?？]\s*$/.test(text) && !STATUS_REPORT.test(text) && !IMPERATIVE.test(text) && !GIVEN.test(text) && !CONDITIONAL.test(text);
}

/**
 * The nearest problem the user stated within USER_PROBLEM_WINDOW messages, else (when the
 * sentence names no problem itself) the nearest any speaker stated within WINDOW_MESSAGES.
 */
function findProblem(units: Unit[], from: number, userOnly: boolean): Unit | undefined {
  const anchor = units[from] as Unit;
  let nearest: Unit | undefined;
  for (let j = from - 1; j >= 0; j -= 1) {
    const unit = units[j] as Unit;
    const distance = anchor.position - unit.position;
    if (distance > USER_PROBLEM_WINDOW) break;
    if (!isProblem(unit.text)) continue;
    if (unit.role === 'user') return unit;
    if (!nearest && !userOnly && distance <= WINDOW_MESSAGES) nearest = unit;
  }
  return nearest;
}

// A question about a cause or the trouble itself ("What caused the missing PDF?", "电梯怎么会刚好那天坏？").
const CAUSE_QUESTION = /\b(?:why|what caused|how come|what happened|what went wrong)\b|为什么|为啥|怎么会|怎么回事|什么原因|怎么了/i;

/** Whether unit `i`'s message answers a question by the other speaker that asks for no cause. */
function answersQuestionOnOther(units: Unit[], i: number): boolean {
  const unit = units[i] as Unit;
  let j = i - 1;
  while (j >= 0 && (units[j] as Unit).position === unit.position) j -= 1;
  const asked = units[j];
  return asked !== undefined && asked.position === unit.position - 1 && asked.speaker !== unit.speaker && QUESTION.test(asked.text) && !CAUSE_QUESTION.test(asked.text);
}

/** A later message by another speaker that reports the fix's outcome. */
function findReport(units: Unit[], from: number): Unit | undefined {
  const solution = units[from] as Unit;
  for (let j = from + 1; j < units.length; j += 1) {
    const unit = units[j] as Unit;
    if (unit.position - solution.position > REPORT_WINDOW) break;
    if (unit.speaker !== solution.speaker && EFFECT_REPORT.test(unit.text)) return unit;
  }
  return undefined;
}

// A question that asks for the fix ("What's the fix?", "怎么修？"): the other speaker's answer is the solution.
const FIX_QUESTION = /\b(?:what(?:'s| is) the fix|how (?:do|can|should) (?:i|we|you) fix|what should (?:i|we) (?:change|do))\b|怎么(?:修|改|解决|办|处理)/i;

function findSolution(units: Unit[], from: number): number | undefined {
  const anchor = units[from] as Unit;
  for (let j = from + 1; j < units.length; j += 1) {
    const unit = units[j] as Unit;
    if (unit.position - anchor.position > WINDOW_MESSAGES) break;
    // The next cause starts a new explanation; its solution is its own.
    if (CAUSE_BACKWARD.test(unit.text)) break;
    if (FIX_QUESTION.test(unit.text) && QUESTION.test(unit.text)) {
      const answer = units.findIndex((u, k) => k > j && u.position > unit.position && u.speaker !== unit.speaker);
      const reply = units[answer];
      if (reply && reply.position === unit.position + 1 && !QUESTION.test(reply.text)) return answer;
      continue;
    }
    // "那应该怎么改比较好？" asks for the fix; the answer gives it.
    if (SOLUTION.test(unit.text) && !QUESTION.test(unit.text) && !NEXT_TIME.test(unit.text)) return j;
  }
  return undefined;
}

/**
 * OPERATION chains: ordered actions → result. A step is a clause that opens with a sequence
 * marker ("first", "then", "next", "finally", "首先", "然后", "接着", "最后"), a list number
 * ("1.", "step 2", "第一步"), or an imperative verb. Told in the past by a person ("then we put
 * a queue in"), it is an event, not an instruction, and is left to NARRATIVE. Steps in one
 * message, or in consecutive messages of one speaker, form one chain, a later message only when
 * its step carries the procedure on ("Then…", "2."); a new "first"/"1." starts another. A step
 * has no subject: "then they fit the cabinets" describes, "then you can add" allows. A chain needs
 * an explicit sequence marker or list number, or three imperatives.
 * A step saying what comes of it ("you should see", "就可以了", "即可") is the result.
 */
import type { ExtractedChain } from '../../../../shared/types/memory.js';
import { chainFromSteps, type Step } from './build-chain.js';
import { CONDITIONAL, splitClauses, type Unit } from './text-units.js';
import { isPastEvent } from './extract-narrative.js';

/** A step's number: "1.", "2)", "Step 3:", "④", "第二步" (a source, for the patterns that open with one). */
export const STEP_NUMBER = String.raw`\d{1,2}[.)、](?!\d)|step\s*\d+\s*[:.)]?|[①②③④⑤⑥⑦⑧⑨⑩]|第[一二三四五六七八九十\d]+步`;
const LIST_NUMBER = new RegExp(`^\\s*(?:${STEP_NUMBER})`, 'i');
// An English marker is a word of prose, followed by a space or a comma: not "next();" in code.
// "next" is a step's marker only before a comma or a colon ("Next, run…"): "next time", "Next 14
// builds", "next build runs…" name a time, a version, a command.
export const SEQUENCE = /^\s*(?:(?:and\s+)?(?:first(?:ly)?|second(?:ly)?|third|then|next(?=\s*[,:])|after that|afterwards|finally|lastly)\b(?=[\s,:]|$)|首先|先|然后|接着|之后|再|最后|随后)/i;
// A marker that carries a procedure on from an earlier step (not one that opens a procedure).
const CONTINUES = /^\s*(?:(?:and\s+)?(?:second(?:ly)?|third|then|next(?=\s*[,:])|after that|afterwards|finally|lastly)\b(?=[\s,:]|$)|然后|接着|之后|再|最后|随后|(?:[2-9]|1\d)[.)、](?!\d)|step\s*(?:[2-9]|1\d)\b|[②③④⑤⑥⑦⑧⑨⑩]|第[二三四五六七八九十]步)/i;
const STARTS_LIST = /^\s*(?:first(?:ly)?\b|1[.)、]|step\s*1\b|①|第一步|首先)/i;
export const IMPERATIVE = new RegExp(
  String.raw`^\s*(?:(?:and|just|now|please)\s+)?(?:run|open|add|set|install|restart|check|take|use|go|click|type|create|delete|remove|copy|move|put|stir|cook|boil|heat|pour|mix|cut|chop|wait|call|enable|disable|change|replace|update|upgrade|deploy|build|start|stop|kill|look|try|edit|save|commit|push|pull|write|drop|turn|press|select|bring|keep|reduce|increase|capture|compare|send|force|assert|give|forbid|store|clear|fill|serve|book|buy|pack|order|fix|plan|generate|print|ask|tell|make|hang|meet|connect|ship|skip|leave|pick|choose|count|follow|contact|share|rent|hire|confirm|reserve|prepare|arrange|cancel|avoid|note|don't|do not)\b` +
    String.raw`|^\s*(?:把|将|放|加|倒|切|炒|煮|焯|炖|盖|打开|运行|执行|安装|重启|点击|输入|检查|设置|订|买|看|转|收汁|撇|捞)`,
  'i',
);
// What opens advice before its verb: "Then book it", "In that case put it…", "那就先问问…".
const ADVICE_LEAD = /^\W*(?:(?:then|also|so|and|in that case)\b[\s,]*)+|^\W*(?:那就|那么|那|然后|另外|还有|顺便)[，,\s]*/i;

/**
 * What to do, not what happened: an imperative (after "then", "in that case", 那就…), "let's…",
 * or a Chinese reminder ("记得…", "别忘了…"). Advice tells the listener a step; it states no
 * cause, no conclusion and no moment of a timeline.
 */
export function isInstruction(text: string): boolean {
  // A numbered step or a sequence marker ("1. Meet the forwarder at 7:00", "First, book…") opens an instruction too.
  const clause = text.replace(LIST_NUMBER, '').replace(ADVICE_LEAD, '').replace(SEQUENCE, '').replace(/^[\s,，:：]+/, '');
  // "Update: staging was stable…", "Note: …": a word before a colon is a heading, not a verb.
  if (/^\W*[a-z]+\s*:/i.test(clause)) return false;
  return IMPERATIVE.test(clause) || /^\W*let'?s\b/i.test(clause) || /^[^，,。]{0,8}(?:记得|别忘了|一定要|务必)/u.test(clause);
}

const RESULT = /\b(?:you(?:'ll| will| should) (?:see|get|have)|should (?:now )?(?:see|work|pass)|that's it|you're done|and it works|is a mechanical change)\b|就可以了|即可|就行了|就好了?|就完成了|出锅/i;
// A report by the other speaker, at most this many messages after the last step.
const REPORT_WINDOW = 2;
const REPORTED_RESULT = /^\s*(?:done|it worked|that worked)\b|\b(?:test passes|tests pass|it works now|worked)\b|成功了|做好了|搞定/i;
// "Then there is a leak", "Then it's the vessel": "then" concludes ("in that case"); a clause
// whose subject is a pronoun before a form of "be" states something, it is no step to take.
const STATEMENT = /^(?:there|it|that|this|they|he|she|you|we)(?:'s|'re| is| are| was| were| must be| should be| will be)\b/i;
// An instruction has no subject: "then they fit the cabinets" describes what others do, "then
// you can add a bit" says what is possible; neither is a step to take ("then you run it" still is).
// A clause opening with a determiner has a noun for its subject ("Then the index is no longer needed").
const SUBJECT_CLAUSE = /^(?:i|we|they|he|she|it|there|the|a|an|this|that|these|those|my|our|your|his|her|their)\s+\w|^you\s+(?:can|could|may|might|would|will|'ll)\b|^you'll\b/i;
const CLAUSE_MARKER = new RegExp(`${SEQUENCE.source}|${LIST_NUMBER.source}`, 'i');

interface Draft {
  steps: Step[];
  explicit: boolean;
  role: string;
  lastPosition: number;
}

export function extractOperation(units: Unit[], createdAt: string): ExtractedChain[] {
  const chains: ExtractedChain[] = [];
  let draft: Draft | undefined;
  const flush = () => {
    if (draft && (draft.explicit || draft.steps.length >= 3)) {
      const last = draft.steps[draft.steps.length - 1] as Step;
      const chain = chainFromSteps('OPERATION', draft.steps, { complete: last.role === 'result' }, createdAt);
      if (chain) chains.push(chain);
    }
    draft = undefined;
  };
  let previous: Unit | undefined;
  for (const unit of units) {
    // "Then book the hotel this week." opening a reply to the other speaker means "in that case":
    // it answers what was just said, it carries no sequence on (the reply is advice, a step only
    // as an imperative among others).
    const replyOpening = unit.sentence === 0 && previous !== undefined && previous.speaker !== unit.speaker;
    previous = unit;
    if (draft && unit.position - draft.lastPosition > REPORT_WINDOW) flush();
    // The other speaker may report how the steps went ("Done. The snapshot is 180 MB bigger.").
    if (draft && unit.role !== draft.role) {
      if (REPORTED_RESULT.test(unit.text)) {
        draft.steps.push({ role: 'result', text: unit.text, unit, marker: REPORTED_RESULT.exec(unit.text)?.[0] });
        flush();
        continue;
      }
    }
    for (const clause of splitClauses(unit.text, CLAUSE_MARKER)) {
      const list = LIST_NUMBER.exec(clause);
      const sequence = SEQUENCE.exec(clause);
      const body = clause.replace(LIST_NUMBER, '').replace(SEQUENCE, '').replace(/^[\s,，:：]+/, '');
      const imperative = IMPERATIVE.exec(body);
      const result = RESULT.exec(clause);
      // In "If A, then B" the "then" opens the consequent ("in that case"): no step of a sequence.
      const consequent = sequence !== null && /^\s*then\b/i.test(sequence[0]) && (CONDITIONAL.test(unit.text) || (replyOpening && clause === unit.text.slice(0, clause.length)));
      const marker = list?.[0].trim() ?? (consequent ? undefined : sequence?.[0].trim());
      // Questions ("收汁要收到什么程度？") ask about a step; they are not one.
      const isStep = (marker !== undefined || imperative !== null) && !isPastEvent(clause) && !/[?？]\s*$/.test(clause) && !STATEMENT.test(body) && !SUBJECT_CLAUSE.test(body);
      // A later message carries a procedure on only where it says so ("Then…", "2."); a fresh
      // instruction there ("Use stream.pipeline") is advice of its own.
      // A reply's opening "Then" ("in that case", see `consequent`) carries nothing on either.
      if (isStep && draft && draft.lastPosition !== unit.position && (!CONTINUES.test(clause) || consequent)) flush();
      // A new "first"/"1." starts another procedure: after two steps, or after a step of an earlier message.
      const startsList = marker !== undefined && STARTS_LIST.test(clause);
      if (isStep && draft && (draft.role !== unit.role || (startsList && (draft.steps.length >= 2 || draft.lastPosition !== unit.position)))) flush();
      if (isStep) {
        draft ??= { steps: [], explicit: false, role: unit.role, lastPosition: unit.position };
        draft.explicit ||= marker !== undefined;
        draft.steps.push({ role: result ? 'result' : 'action', text: clause, unit, marker: marker ?? imperative?.[0].trim() });
        draft.lastPosition = unit.position;
      } else if (draft && result && unit.role === draft.role) {
        draft.steps.push({ role: 'result', text: clause, unit, marker: result[0] });
        draft.lastPosition = unit.position;
      }
    }
  }
  flush();
  return chains;
}

/**
 * An LLM failure's cause in the page's language. The engine words each cause in English
 * (main/engine/llm/failure-cause.ts: the CLI prints it, and causes are counted by their text);
 * the page reads that wording back and says it in its own. What the server or the model said
 * stays as they said it, and a cause this does not know is shown as it came.
 */
import { translate, type Locale } from './index';

type Rule = [RegExp, (locale: Locale, match: RegExpMatchArray) => string];

const RULES: Rule[] = [
  [/^invalid JSON(?: \(the answer began: (.*)\))?$/s, (l, m) => withAnswer(l, translate(l, 'cause.invalidJson'), m[1])],
  [/^JSON of the wrong shape(?:: (.*?))?(?: \(the answer began: (.*)\))?$/s, (l, m) => withAnswer(l, withRest(translate(l, 'cause.wrongShape'), m[1]), m[2])],
  [/^the model refused(?:: (.*))?$/s, (l, m) => withRest(translate(l, 'cause.refused'), m[1])],
  [/^timeout after (\d+) ms$/, (l, m) => translate(l, 'cause.timeoutAfter', { ms: m[1]! })],
  [/^timeout$/, (l) => translate(l, 'cause.timeout')],
  [/^circuit open after repeated failures$/, (l) => translate(l, 'cause.circuitRepeatedFailures')],
  [/^circuit open after repeated (.+)$/s, (l, m) => translate(l, 'cause.circuitAfter', { cause: localizeCause(m[1]!, l) })],
  [/^circuit open: (.+)$/s, (l, m) => translate(l, 'cause.circuitPermanent', { reason: m[1]! })],
  [/^token budget exhausted$/, (l) => translate(l, 'cause.budget')],
  [/^could not reach the server$/, (l) => translate(l, 'cause.unreachable')],
  [/^a malformed answer$/, (l) => translate(l, 'cause.malformed')],
];

export function localizeCause(cause: string, locale: Locale): string {
  if (locale === 'en') return cause;
  for (const [pattern, say] of RULES) {
    const match = cause.match(pattern);
    if (match) return say(locale, match);
  }
  return cause;
}

function withRest(head: string, rest: string | undefined): string {
  return rest ? `${head}: ${rest}` : head;
}

function withAnswer(locale: Locale, head: string, answer: string | undefined): string {
  return answer ? `${head}${translate(locale, 'cause.answerBegan', { answer })}` : head;
}

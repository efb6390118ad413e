/**
 * Tolerant JSON for model answers. Servers without structured outputs (and small local models
 * with them) answer with JSON wrapped in prose or code fences, with trailing commas, single
 * quotes, unquoted keys, Python literals, comments, or cut off by the token limit. This parser
 * accepts all of those and reports whether it had to.
 *
 * It is a small recursive-descent parser rather than a chain of regex rewrites: rewrites cannot
 * tell a quote inside a string from one that ends it, and closing a truncated document needs
 * to know which containers are open.
 *
 * @example
 * repairJson('Sure! ```json\n{abstract: "A", tags: [\'x\',],}\n```');
 * // { ok: true, value: { abstract: 'A', tags: ['x'] }, repaired: true }
 * repairJson('{"a": [1, 2');  // { ok: true, value: { a: [1, 2] }, repaired: true, truncated: true }
 * repairJson('no json here'); // { ok: false, error: 'no JSON object or array found' }
 */

export type RepairResult =
  | { ok: true; value: unknown; repaired: boolean; truncated: boolean }
  | { ok: false; error: string };

export interface RepairOptions {
  /**
   * The shape the caller wants at the top. With 'object' (or 'array') only `{` (or `[`) can
   * open the answer, so stray brackets in prose ("see [1]: {...}") are not mistaken for it.
   * Default 'any': the first bracket that parses wins.
   */
  expect?: 'object' | 'array' | 'any';
}

/** Most start positions tried when prose before the JSON contains stray brackets. */
const MAX_CANDIDATES = 16;

export function repairJson(text: string, options: RepairOptions = {}): RepairResult {
  const expect = options.expect ?? 'any';
  const trimmed = text.trim();
  try {
    const value: unknown = JSON.parse(trimmed);
    if (matches(value, expect)) return { ok: true, value, repaired: false, truncated: false };
    // Some models answer with the JSON document encoded as a JSON string.
    if (typeof value === 'string') {
      const inner = repairJson(value, options);
      return inner.ok ? { ...inner, repaired: true } : inner;
    }
  } catch {
    // Not strict JSON: fall through to the tolerant parse.
  }
  const body = extractCandidateRegion(trimmed);
  let lastError = `no JSON ${expect === 'any' ? 'object or array' : expect} found`;
  let tried = 0;
  for (const start of candidateStarts(body, expect)) {
    if (tried++ >= MAX_CANDIDATES) break;
    const parser = new TolerantParser(body, start);
    try {
      const value = parser.parseValue();
      if (value === MISSING) continue;
      return { ok: true, value, repaired: true, truncated: parser.truncated };
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
  }
  return { ok: false, error: lastError };
}

function matches(value: unknown, expect: 'object' | 'array' | 'any'): boolean {
  if (expect === 'array') return Array.isArray(value);
  const container = typeof value === 'object' && value !== null;
  if (expect === 'object') return container && !Array.isArray(value);
  return container;
}

/**
 * Drops reasoning blocks (`<think>...</think>`, emitted by some local reasoning models) and,
 * when the answer has a fenced block holding JSON, keeps only that block's content.
 */
function extractCandidateRegion(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  // An unterminated think block means the model never got to the answer; keep what follows it, if anything.
  out = out.replace(/<think>[\s\S]*$/i, (block) => (/[{[]/.test(block) ? block.replace(/^<think>/i, '') : ''));
  const fence = /```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g;
  for (const match of out.matchAll(fence)) {
    const inner = match[1] ?? '';
    if (/[{[]/.test(inner)) return inner;
  }
  return out;
}

/** Positions that could open the answer, in document order. */
function* candidateStarts(text: string, expect: 'object' | 'array' | 'any'): Generator<number> {
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if ((ch === '{' && expect !== 'array') || (ch === '[' && expect !== 'object')) yield i;
  }
}

const MISSING = Symbol('missing');
type Parsed = unknown | typeof MISSING;

class RepairError extends Error {}

class TolerantParser {
  private pos: number;
  truncated = false;

  constructor(
    private readonly text: string,
    start: number,
  ) {
    this.pos = start;
  }

  parseValue(): Parsed {
    this.skipSpace();
    if (this.atEnd()) {
      this.truncated = true;
      return MISSING;
    }
    const ch = this.text[this.pos];
    if (ch === '{') return this.parseObject();
    if (ch === '[') return this.parseArray();
    if (ch === '"' || ch === "'") return this.parseString();
    if (ch === '-' || ch === '+' || ch === '.' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.parseNumber();
    const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.pos, this.pos + 32))?.[0];
    if (word !== undefined) {
      const literal = LITERALS.get(word);
      if (literal !== undefined) {
        this.pos += word.length;
        return literal.value;
      }
      // A bare word that is a prefix of a literal at the very end is a truncated literal.
      if (this.pos + word.length >= this.text.length) {
        const completed = [...LITERALS.keys()].find((key) => key.startsWith(word));
        if (completed !== undefined) {
          this.pos += word.length;
          this.truncated = true;
          return LITERALS.get(completed)?.value ?? null;
        }
      }
    }
    throw new RepairError(`unexpected ${JSON.stringify(ch)} at ${this.pos}`);
  }

  private parseObject(): Record<string, unknown> {
    this.pos += 1;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.skipSpace();
      if (this.atEnd()) {
        this.truncated = true;
        return out;
      }
      const ch = this.text[this.pos];
      if (ch === '}') {
        this.pos += 1;
        return out;
      }
      if (ch === ',') {
        // Leading, doubled or trailing commas.
        this.pos += 1;
        continue;
      }
      const key = this.parseKey();
      if (key === MISSING) {
        this.truncated = true;
        return out;
      }
      this.skipSpace();
      if (this.atEnd()) {
        this.truncated = true;
        return out;
      }
      if (this.text[this.pos] === ':' || this.text[this.pos] === '=') this.pos += 1;
      else throw new RepairError(`expected ':' after key ${JSON.stringify(key)} at ${this.pos}`);
      const value = this.parseValue();
      // A key whose value was cut off is dropped rather than guessed.
      if (value === MISSING) return out;
      out[key] = value;
    }
  }

  private parseKey(): string | typeof MISSING {
    const ch = this.text[this.pos];
    if (ch === '"' || ch === "'") {
      const { value, closed } = this.readString();
      // A key cut off inside its quotes is incomplete: drop it.
      return closed ? value : MISSING;
    }
    const match = /^[A-Za-z_$][\w$-]*/.exec(this.text.slice(this.pos, this.pos + 256));
    if (!match) throw new RepairError(`expected a key at ${this.pos}`);
    this.pos += match[0].length;
    if (this.atEnd()) return MISSING;
    return match[0];
  }

  private parseArray(): unknown[] {
    this.pos += 1;
    const out: unknown[] = [];
    for (;;) {
      this.skipSpace();
      if (this.atEnd()) {
        this.truncated = true;
        return out;
      }
      const ch = this.text[this.pos];
      if (ch === ']') {
        this.pos += 1;
        return out;
      }
      if (ch === ',') {
        this.pos += 1;
        continue;
      }
      const value = this.parseValue();
      if (value === MISSING) return out;
      out.push(value);
    }
  }

  private parseString(): string {
    return this.readString().value;
  }

  private readString(): { value: string; closed: boolean } {
    const quote = this.text[this.pos];
    this.pos += 1;
    let out = '';
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos] as string;
      if (ch === '\\') {
        const next = this.text[this.pos + 1];
        if (next === undefined) {
          this.pos += 1;
          break;
        }
        const simple = ESCAPES[next];
        if (simple !== undefined) {
          out += simple;
          this.pos += 2;
        } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) {
          out += String.fromCharCode(parseInt(this.text.slice(this.pos + 2, this.pos + 6), 16));
          this.pos += 6;
        } else {
          // An escape JSON does not know (\' from single-quoted habits, \x): keep the character.
          out += next;
          this.pos += 2;
        }
        continue;
      }
      if (ch === quote) {
        if (quote === '"' && !this.closesString(this.pos + 1)) {
          // An unescaped quote inside the text ("said "hi" to"): keep it as text.
          out += ch;
          this.pos += 1;
          continue;
        }
        this.pos += 1;
        return { value: out, closed: true };
      }
      out += ch;
      this.pos += 1;
    }
    this.truncated = true;
    return { value: out, closed: false };
  }

  /** Whether a quote followed by this position plausibly ends a string (what follows is structure). */
  private closesString(from: number): boolean {
    let i = from;
    while (i < this.text.length && /\s/.test(this.text[i] as string)) i += 1;
    if (i >= this.text.length) return true;
    const next = this.text[i];
    return next === ',' || next === '}' || next === ']' || next === ':' || next === '"' || next === "'";
  }

  private parseNumber(): Parsed {
    const match = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 64));
    if (!match) {
      // A lone '-' at the very end: the number was cut off.
      if (this.pos + 1 >= this.text.length) {
        this.pos = this.text.length;
        this.truncated = true;
        return MISSING;
      }
      throw new RepairError(`bad number at ${this.pos}`);
    }
    this.pos += match[0].length;
    const value = Number(match[0].endsWith('.') ? match[0].slice(0, -1) : match[0]);
    if (!Number.isFinite(value)) throw new RepairError(`bad number at ${this.pos}`);
    return value;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos] as string;
      if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t' || ch === '\u00a0' || ch === '\ufeff') {
        this.pos += 1;
      } else if (ch === '/' && this.text[this.pos + 1] === '/') {
        const end = this.text.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.text.length : end + 1;
      } else if (ch === '/' && this.text[this.pos + 1] === '*') {
        const end = this.text.indexOf('*/', this.pos + 2);
        this.pos = end === -1 ? this.text.length : end + 2;
      } else {
        return;
      }
    }
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }
}

const ESCAPES: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** JSON, Python and JavaScript spellings of the three literals. */
const LITERALS = new Map<string, { value: unknown }>([
  ['true', { value: true }],
  ['false', { value: false }],
  ['null', { value: null }],
  ['True', { value: true }],
  ['False', { value: false }],
  ['None', { value: null }],
  ['undefined', { value: null }],
  ['NaN', { value: null }],
]);

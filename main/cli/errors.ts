/**
 * How the CLI tells a person that a command failed: one line naming the error's code, what went
 * wrong and what to do, and an exit code from a small documented set. `--verbose` adds the
 * stack. Errors that are not Cairn's own (a bug, or a system error nobody turned into one) are
 * classified here too, so every path out of the CLI speaks the same way.
 */
import { CairnError, errorMessage, type ErrorCode } from '../../shared/errors.js';

/** The exit codes of every command; `cairn --help` lists them (from EXIT_CODES_HELP) and so does the README. */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2, busy: 3, bug: 4 } as const;

export const EXIT_CODES_HELP = `Exit codes:
  ${EXIT_CODES.ok}  done
  ${EXIT_CODES.failed}  failed: the command could not do its work (a file it could not read, a failed LLM call, ...)
  ${EXIT_CODES.usage}  bad command line: an unknown command or flag, a missing argument, a bad value
  ${EXIT_CODES.busy}  workspace busy: another Cairn process holds its lock
  ${EXIT_CODES.bug}  unexpected error: a bug in Cairn, please report it`;

/** Where unexpected errors go. Cairn has no public tracker address yet; this says who to tell and what to send. */
export const REPORT_BUGS = 'please report it on the issue tracker of the repository you got Cairn from, with the output of the same command run with --verbose';

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set(['INVALID_INPUT', 'INVALID_URI', 'PATH_ESCAPE']);
const BUG_CODES: ReadonlySet<ErrorCode> = new Set(['INTERNAL', 'WORKER_CRASHED']);

/** What to do about each kind of error, said once for every command. */
const ADVICE: Partial<Record<ErrorCode, string>> = {
  INVALID_URI: 'A node URI looks like ctx://resources/notes/todo.md',
  PATH_ESCAPE: 'A node URI stays inside its scope: no ".." segments',
  NOT_FOUND: 'Check the name, path or ctx:// URI',
  NOT_A_DIRECTORY: 'Give a folder or a directory URI (one ending in "/")',
  IS_A_DIRECTORY: 'Give a file or a file URI',
  ALREADY_EXISTS: 'Choose another path',
  UNSUPPORTED_FORMAT: 'Check that the file is one this command reads (see its --help)',
  UNSUPPORTED_ENCODING: 'Save the file as UTF-8',
  PARSE_FAILED: 'Check that the file is complete and what this command reads (see its --help)',
  TOO_LARGE: 'Give a smaller input, or raise the limit (see the command’s --help)',
  IO_ERROR: 'Check that the path exists, that you may read and write it, and that the disk has room',
  CANCELLED: 'Run the command again to go on (an ingest resumes where it stopped)',
  TIMEOUT: 'Try again; for LLM calls, --llm-timeout sets how long to wait',
  LLM_REQUEST_FAILED: 'Check --llm-base-url, --llm-model and the API key, or run without an LLM (offline summaries)',
  LLM_BAD_RESPONSE: 'Check that --llm-model names a chat model the server has, or run without an LLM',
  LLM_CIRCUIT_OPEN: 'The LLM server failed repeatedly: check it, wait for --llm-cooldown, or run without an LLM',
  LLM_RATE_LIMITED: 'Wait and try again, or lower --max-concurrent-llm',
  LLM_BUDGET_EXHAUSTED: 'Raise --token-budget, or let the rest be summarized offline',
  EMBED_FAILED: 'Check --embed-model, --embed-base-url and the API key, or leave --embed-model out to use the local embedder',
  INDEX_FAILED: 'Rebuild the index with `cairn reindex`',
  LOCKED: 'Wait for it to finish, or use another --workspace',
};

/** A Node system error (ENOENT, EACCES, ENOSPC, …) that no code turned into a CairnError: an I/O problem, not a bug. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** The code an error is reported with, whatever threw it. */
export function codeOf(error: unknown): ErrorCode {
  if (CairnError.is(error)) return error.code;
  return isSystemError(error) ? 'IO_ERROR' : 'INTERNAL';
}

export function exitCodeOf(error: unknown): number {
  const code = codeOf(error);
  if (code === 'LOCKED') return EXIT_CODES.busy;
  if (USAGE_CODES.has(code)) return EXIT_CODES.usage;
  if (BUG_CODES.has(code)) return EXIT_CODES.bug;
  return EXIT_CODES.failed;
}

const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * The one line a person reads, e.g.
 * `cairn: LOCKED: The outbox in /ws/.cairn/queue is busy: cairn ingest (process 123 on host) holds it …. Wait for it to finish, or use another --workspace.`
 * `command` names the command for the usage advice (`cairn ingest --help`).
 */
export function errorLine(error: unknown, command = ''): string {
  const code = codeOf(error);
  const message = flat(errorMessage(error)) || 'no message';
  if (BUG_CODES.has(code) || (!CairnError.is(error) && !isSystemError(error))) {
    const name = error instanceof Error && error.name !== 'Error' && error.name !== 'CairnError' ? `${error.name}: ` : '';
    return `cairn: unexpected error (${code}): ${sentence(name + message)} This is a bug in Cairn: ${REPORT_BUGS}.`;
  }
  // An error may know better than its code what to do (a file missing from the installation is
  // NOT_FOUND, but no name the person gave is wrong): its `details.advice` wins.
  const own = CairnError.is(error) && typeof error.details?.advice === 'string' ? error.details.advice : undefined;
  const advice = own ?? (code === 'INVALID_INPUT' ? `See \`cairn${command ? ` ${command}` : ''} --help\`` : ADVICE[code]);
  return `cairn: ${code}: ${sentence(message)}${advice ? ` ${sentence(advice)}` : ''}`;
}

/** The stack of an error and of its causes, for --verbose. */
export function errorStack(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    parts.push((depth === 0 ? '' : 'caused by: ') + (current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current)));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

/** The JSON error document `--json` prints on stdout (its shape is part of the CLI's contract). */
export function errorDocument(error: unknown): { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } {
  const details = CairnError.is(error) ? error.details : isSystemError(error) ? { sysCode: error.code } : undefined;
  return { error: { code: codeOf(error), message: errorMessage(error), ...(details ? { details } : {}) } };
}

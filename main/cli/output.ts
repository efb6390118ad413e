/**
 * What the CLI prints. `--json` prints exactly one JSON document on stdout (an error too);
 * people get readable text on stdout; progress and logs go to stderr.
 */
import type { Logger } from '../engine/ports/logger.js';
import { errorDocument, errorLine, errorStack, exitCodeOf } from './errors.js';

export interface OutputOptions {
  json?: boolean;
  /** Adds the stack to an error. */
  verbose?: boolean;
}

/** Whether a JSON document is already on stdout: `--json` prints exactly one, an error included. */
let documentPrinted = false;
/** The command being run (`sessions import`), for the usage advice of an error line. */
let commandPath = '';
const reported = new WeakSet<object>();

export function printJson(value: unknown): void {
  documentPrinted = true;
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** For a command that prints its JSON document in parts (`cairn skeleton`): an error after the first part goes to stderr. */
export function startJsonDocument(): void {
  documentPrinted = true;
}

export function setCommandPath(path: string): void {
  commandPath = path;
}

/**
 * Prints an error the way the caller asked for: one line on stderr (see errors.ts), or with
 * --json the one JSON error document on stdout; --verbose (or $CAIRN_DEBUG) adds the stack. Sets
 * the exit code of the first failure. An error that reaches the top-level handler after a
 * command reported it is not printed twice.
 */
export function reportError(error: unknown, options: OutputOptions): void {
  if (typeof error === 'object' && error !== null) {
    if (reported.has(error)) return;
    reported.add(error);
  }
  if (options.json && !documentPrinted) printJson(errorDocument(error));
  else process.stderr.write(`${errorLine(error, commandPath)}\n`);
  if (options.verbose || process.env.CAIRN_DEBUG) process.stderr.write(`${errorStack(error)}\n`);
  if (!process.exitCode) process.exitCode = exitCodeOf(error);
}

/** Logs to stderr: warnings and errors always, info with --verbose. */
export function stderrLogger(verbose: boolean): Logger {
  const line = (level: string, message: string, fields?: Record<string, unknown>) => {
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`${level}: ${message}${extra}\n`);
  };
  return {
    debug: (m, f) => verbose && line('debug', m, f),
    info: (m, f) => verbose && line('info', m, f),
    warn: (m, f) => line('warning', m, f),
    error: (m, f) => line('error', m, f),
  };
}

/** One line of text, cut to `width` characters with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : `${flat.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * What the CLI prints. `--json` prints exactly one JSON document on stdout (an error too);
 * people get readable text on stdout; progress and logs go to stderr.
 */
import { CairnError, errorMessage, serializeError } from '../../shared/errors.js';
import type { Logger } from '../engine/ports/logger.js';

export interface OutputOptions {
  json?: boolean;
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Prints an error the way the caller asked for and sets a failing exit code. */
export function reportError(error: unknown, options: OutputOptions): void {
  const serialized = serializeError(error);
  if (options.json) {
    printJson({ error: { code: serialized.code, message: serialized.message, ...(serialized.details ? { details: serialized.details } : {}) } });
  } else {
    process.stderr.write(`cairn: ${CairnError.is(error) ? error.message : errorMessage(error)}\n`);
    if (!CairnError.is(error) && process.env.CAIRN_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  }
  process.exitCode = CairnError.is(error, 'INVALID_INPUT') || CairnError.is(error, 'INVALID_URI') ? 2 : 1;
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

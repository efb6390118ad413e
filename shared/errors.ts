/**
 * Errors that cross a boundary (worker RPC, IPC, WebSocket, CLI --json) travel as plain data
 * and are revived on the other side with the origin prefixed to the message.
 */
export type ErrorCode =
  | 'INVALID_URI'
  | 'PATH_ESCAPE'
  | 'NOT_FOUND'
  | 'NOT_A_DIRECTORY'
  | 'IS_A_DIRECTORY'
  | 'ALREADY_EXISTS'
  | 'INVALID_INPUT'
  | 'UNSUPPORTED_ENCODING'
  | 'UNSUPPORTED_FORMAT'
  | 'PARSE_FAILED'
  | 'TOO_LARGE'
  | 'IO_ERROR'
  | 'CANCELLED'
  | 'TIMEOUT'
  | 'LLM_REQUEST_FAILED'
  | 'LLM_RATE_LIMITED'
  | 'LLM_CIRCUIT_OPEN'
  | 'LLM_BAD_RESPONSE'
  | 'LLM_BUDGET_EXHAUSTED'
  | 'EMBED_FAILED'
  | 'INDEX_FAILED'
  | 'WORKER_CRASHED'
  /** A call was in flight when the engine worker crashed; the host restarted the engine. */
  | 'ENGINE_RESTARTED'
  /** Another live process owns a resource that only one may hold (a workspace's outbox). */
  | 'LOCKED'
  | 'INTERNAL';

export interface SerializedError {
  code: ErrorCode;
  name: string;
  message: string;
  stack?: string;
  details?: Record<string, unknown>;
  cause?: SerializedError;
}

/** The one error type of Cairn: a stable code, a message for people, optional details and cause. */
export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  /** Whether trying again may succeed (timeouts, rate limits, 5xx). */
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown>; retryable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CairnError';
    this.code = code;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  static is(error: unknown, code?: ErrorCode): error is CairnError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'CairnError' &&
      typeof (error as { code?: unknown }).code === 'string' &&
      (code === undefined || (error as { code: string }).code === code)
    );
  }
}

export function serializeError(error: unknown, depth = 0): SerializedError {
  if (CairnError.is(error)) {
    return {
      code: error.code,
      name: error.name,
      message: error.message,
      stack: error.stack,
      details: error.details,
      cause: error.cause !== undefined && depth < 4 ? serializeError(error.cause, depth + 1) : undefined,
    };
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      code: 'INTERNAL',
      name: error.name,
      message: error.message,
      stack: error.stack,
      details: typeof code === 'string' ? { sysCode: code } : undefined,
      cause: error.cause !== undefined && depth < 4 ? serializeError(error.cause, depth + 1) : undefined,
    };
  }
  return { code: 'INTERNAL', name: 'Error', message: String(error) };
}

/** Rebuilds an error received from another side, naming where it came from. */
export function reviveError(serialized: SerializedError, origin?: string): CairnError {
  // Once only: an error that crossed two hops (engine worker → host → page) names its origin once.
  const message = origin && !serialized.message.startsWith(`${origin}: `) ? `${origin}: ${serialized.message}` : serialized.message;
  const error = new CairnError(serialized.code, message, {
    details: serialized.details,
    cause: serialized.cause ? reviveError(serialized.cause) : undefined,
  });
  if (serialized.stack) error.stack = serialized.stack;
  return error;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The worker envelope (Signal style): requests carry a `seq`; the worker answers each with one
 * response and may send events and logs at any time. Cancellation is an explicit message.
 */
import { z } from 'zod';
import type { SerializedError } from '../errors.js';
import type { CommandName, EngineEvent } from './api.js';

export type HostToWorker =
  | { type: 'request'; seq: number; command: CommandName; payload: unknown }
  | { type: 'cancel'; seq: number }
  | { type: 'shutdown' };

export type WorkerToHost =
  | { type: 'ready' }
  | { type: 'response'; seq: number; ok: true; result: unknown }
  | { type: 'response'; seq: number; ok: false; error: SerializedError }
  | { type: 'event'; event: EngineEvent }
  | { type: 'log'; level: LogLevel; message: string; fields?: Record<string, unknown> }
  | { type: 'closed' };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const HostToWorkerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request'), seq: z.number().int(), command: z.string(), payload: z.unknown() }),
  z.object({ type: z.literal('cancel'), seq: z.number().int() }),
  z.object({ type: z.literal('shutdown') }),
]);

import { describeValue, expectObject, ValidationError } from '../errors';
import type { FlowControlInfo, GlobalParallelism, Queue } from '../schemas/resources';
import type { ServiceConnection } from './connection';
import { getResource, signalOf } from './listing';
import { checkName } from '../enqueue-headers';

// How fast messages go out: queues (order and parallelism per queue, pause/resume) and flow-control
// keys (parallelism and rate shared by every message with the key, across queues and publishes).

/** A queue's settings; a missing queue is created. */
export interface QueueSettings {
  name: string;
  /** Messages of this queue delivered at once. Default 1 (strict order). */
  parallelism?: number;
  /** Create or leave the queue paused: it accepts messages and delivers none until resumed. */
  paused?: boolean;
  signal?: AbortSignal;
}

const QUEUE_KEYS = new Set(['name', 'parallelism', 'paused', 'signal']);

/** `POST /v2/queues`: creates or updates a queue. */
export async function upsertQueue(connection: ServiceConnection, settings: QueueSettings): Promise<void> {
  expectObject(settings, 'settings', '{ name, parallelism?, paused? }');
  for (const key of Object.keys(settings)) {
    if (!QUEUE_KEYS.has(key)) throw new ValidationError(key, `unknown option; known options are ${[...QUEUE_KEYS].join(', ')}`);
  }
  const queueName = checkName('name', settings.name);
  const parallelism = settings.parallelism ?? 1;
  if (!Number.isSafeInteger(parallelism) || parallelism < 1) {
    throw new ValidationError('parallelism', `expected a whole number >= 1, got ${describeValue(settings.parallelism)}`);
  }
  if (settings.paused !== undefined && typeof settings.paused !== 'boolean') {
    throw new ValidationError('paused', `expected true or false, got ${describeValue(settings.paused)}`);
  }
  await connection.requester.request({
    method: 'POST',
    path: ['v2', 'queues'],
    json: { queueName, parallelism, paused: settings.paused ?? false },
    retrySafe: true,
    ...signalOf(settings),
  });
}

/** `GET /v2/queues/{name}`: one queue with its lag (messages waiting). */
export function getQueue(connection: ServiceConnection, name: string, options?: { signal?: AbortSignal }): Promise<Queue> {
  const queue = checkName('name', name);
  return getResource(connection, ['v2', 'queues', queue], 'queue', options);
}

/** `GET /v2/queues`: every queue. */
export function listQueues(connection: ServiceConnection, options?: { signal?: AbortSignal }): Promise<Queue[]> {
  return getResource(connection, ['v2', 'queues'], 'queueList', options);
}

/** `DELETE /v2/queues/{name}`, `POST .../pause`, `POST .../resume`. */
export async function changeQueue(
  connection: ServiceConnection,
  action: 'delete' | 'pause' | 'resume',
  name: string,
  options?: { signal?: AbortSignal },
): Promise<void> {
  const queue = checkName('name', name);
  const path = action === 'delete' ? ['v2', 'queues', queue] : ['v2', 'queues', queue, action];
  await connection.requester.request({ method: action === 'delete' ? 'DELETE' : 'POST', path, retrySafe: true, ...signalOf(options) });
}

/** `GET /v2/flowControl/{key}`: a key's limits and live counters. */
export function getFlowControl(connection: ServiceConnection, key: string, options?: { signal?: AbortSignal }): Promise<FlowControlInfo> {
  const name = checkName('key', key);
  return getResource(connection, ['v2', 'flowControl', name], 'flowControlInfo', options);
}

/** `GET /v2/flowControl`: every key in use. */
export function listFlowControl(connection: ServiceConnection, options?: { signal?: AbortSignal }): Promise<FlowControlInfo[]> {
  return getResource(connection, ['v2', 'flowControl'], 'flowControlInfoList', options);
}

/** `GET /v2/globalParallelism`: the account's parallelism limit and the attempts running now. */
export function getGlobalParallelism(connection: ServiceConnection, options?: { signal?: AbortSignal }): Promise<GlobalParallelism> {
  return getResource(connection, ['v2', 'globalParallelism'], 'globalParallelism', options);
}

/** Limits that override what incoming messages set, until unpinned. */
export interface PinnedLimits {
  parallelism?: number;
  rate?: number;
  /** Seconds. */
  period?: number;
}

/** Which pinned limits to release. */
export interface UnpinnedLimits {
  parallelism?: true;
  rate?: true;
}

/**
 * `POST /v2/flowControl/{key}/pause | resume | resetRate | pin | unpin`. A paused key holds its
 * messages (accepted, not delivered); `resetRate` starts a new rate period now.
 */
export async function changeFlowControl(
  connection: ServiceConnection,
  action: 'pause' | 'resume' | 'resetRate' | 'pin' | 'unpin',
  key: string,
  limits: PinnedLimits | UnpinnedLimits = {},
  options?: { signal?: AbortSignal },
): Promise<void> {
  const name = checkName('key', key);
  const query: Record<string, number | boolean | undefined> = {};
  if (action === 'pin' || action === 'unpin') {
    expectObject(limits, 'limits', '{ parallelism?, rate?, period? }');
    for (const field of ['parallelism', 'rate', 'period'] as const) {
      const value = (limits as Record<string, unknown>)[field];
      if (value === undefined) continue;
      if (action === 'unpin') {
        if (value !== true || field === 'period') throw new ValidationError(field, `to unpin, pass parallelism: true and/or rate: true`);
        query[field] = true;
        continue;
      }
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        throw new ValidationError(field, `expected a whole number >= 1, got ${describeValue(value)}`);
      }
      query[field] = value;
    }
    if (Object.keys(query).length === 0)
      throw new ValidationError('limits', `give at least one of parallelism, rate and period to ${action}`);
  }
  await connection.requester.request({
    method: 'POST',
    path: ['v2', 'flowControl', name, action],
    ...(Object.keys(query).length > 0 ? { query } : {}),
    retrySafe: true,
    ...signalOf(options),
  });
}

import { expectObject, ValidationError } from '../errors';
import { buildEnqueueHeaders, checkName, type EnqueueOptions } from '../enqueue-headers';
import type { RequestSpec } from '../http';
import { headerNames } from '../wire';
import { parseAnswer } from '../schemas/lazy';
import type { Schedule } from '../schemas/resources';
import type { ServiceConnection } from './connection';
import { checkId, getResource, signalOf } from './listing';
import { parseCron } from './cron';
import { classifyDestination } from './sending';

// Schedules: a message the service sends on a cron, each firing a normal message (logs, retries,
// callbacks, DLQ).

/** Every setting of a schedule's messages; deduplication, `notBefore` and workflows do not apply. */
export type ScheduleOptions = Omit<EnqueueOptions, 'notBefore' | 'deduplicationId' | 'contentBasedDeduplication' | 'workflow'>;

/** A schedule to create, or to replace when `scheduleId` names an existing one. */
export interface ScheduleRequest extends ScheduleOptions {
  /** A URL (`https://...`) or a URL group name. */
  destination: string;
  /**
   * Five cron fields (minute hour day-of-month month day-of-week), in UTC unless it starts with
   * `CRON_TZ=Area/City `: `0 9 * * 1-5`, `CRON_TZ=Europe/Paris 30 8 * * *`.
   */
  cron: string;
  body?: string | Uint8Array;
  /** Your own id: creating with an existing id replaces that schedule. Default: the service picks one. */
  scheduleId?: string;
  /** Enqueue each firing on this queue instead of publishing it. */
  queue?: string;
  signal?: AbortSignal;
}

const REQUEST_KEYS = new Set(['destination', 'cron', 'body', 'scheduleId', 'queue', 'signal']);
const EXCLUDED = ['notBefore', 'deduplicationId', 'contentBasedDeduplication', 'workflow'];

/** The cron as sent: checked by {@link parseCron}, trimmed. */
function checkCron(cron: unknown): string {
  parseCron(cron);
  return (cron as string).trim();
}

/** `POST /v2/schedules/{destination}`: creates (or, with `scheduleId`, replaces) a schedule. */
export async function createSchedule(connection: ServiceConnection, request: ScheduleRequest): Promise<{ scheduleId: string }> {
  expectObject(request, 'request', '{ destination, cron, body?, ...options }');
  const body = request.body ?? '';
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new ValidationError('body', 'expected a string or a Uint8Array; use schedules.createJSON for objects');
  }
  return send(connection, request, body, scheduleOptionsOf(request));
}

/** Like {@link createSchedule}, with the body serialised as JSON and `Content-Type: application/json`. */
export async function createScheduleJSON<T>(
  connection: ServiceConnection,
  request: Omit<ScheduleRequest, 'body' | 'contentType'> & { body: T },
): Promise<{ scheduleId: string }> {
  expectObject(request, 'request', '{ destination, cron, body, ...options }');
  const text = JSON.stringify(request.body);
  if (text === undefined) throw new ValidationError('body', 'cannot be serialised to JSON (undefined, a function or a symbol)');
  return send(connection, request, text, { ...scheduleOptionsOf(request), contentType: 'application/json' });
}

function scheduleOptionsOf(request: object): ScheduleOptions {
  const options: Record<string, unknown> = {};
  for (const key of Object.keys(request)) {
    if (EXCLUDED.includes(key)) throw new ValidationError(key, 'does not apply to a schedule (each firing is a new message)');
    if (!REQUEST_KEYS.has(key)) options[key] = (request as Record<string, unknown>)[key];
  }
  return options as ScheduleOptions;
}

function send(
  connection: ServiceConnection,
  request: Omit<ScheduleRequest, 'body'>,
  body: string | Uint8Array,
  options: ScheduleOptions,
): Promise<{ scheduleId: string }> {
  const destination = classifyDestination(request.destination);
  if (destination.kind === 'api') throw new ValidationError('destination', 'a schedule sends to a URL or a URL group');
  const names = headerNames(connection.headerPrefix);
  const headers = buildEnqueueHeaders(options, { headerPrefix: connection.headerPrefix });
  headers[names.cron] = checkCron(request.cron);
  if (request.scheduleId !== undefined) headers[names.scheduleId] = checkName('scheduleId', request.scheduleId);
  if (request.queue !== undefined) headers[names.queueName] = checkName('queue', request.queue);
  const spec: RequestSpec = {
    method: 'POST',
    path: destination.kind === 'url' ? ['v2', 'schedules'] : ['v2', 'schedules', destination.name],
    headers,
    body,
    // Replacing a schedule by its id is idempotent; creating one without an id is not.
    retrySafe: request.scheduleId !== undefined,
    ...signalOf(request),
  };
  if (destination.kind === 'url') spec.rawTail = destination.href;
  return connection.requester.requestJson(spec, (value, url) => parseAnswer('scheduleCreated', value, url));
}

/** `GET /v2/schedules/{id}`: one schedule with its next firing time. */
export function getSchedule(connection: ServiceConnection, scheduleId: string, options?: { signal?: AbortSignal }): Promise<Schedule> {
  const id = checkId('scheduleId', scheduleId, 'schedule id');
  return getResource(connection, ['v2', 'schedules', id], 'schedule', options);
}

/** `GET /v2/schedules`: every schedule. */
export function listSchedules(connection: ServiceConnection, options?: { signal?: AbortSignal }): Promise<Schedule[]> {
  return getResource(connection, ['v2', 'schedules'], 'scheduleList', options);
}

/** `DELETE /v2/schedules/{id}`; `PATCH .../pause` and `.../resume`. A paused schedule does not fire. */
export async function changeSchedule(
  connection: ServiceConnection,
  action: 'delete' | 'pause' | 'resume',
  scheduleId: string,
  options?: { signal?: AbortSignal },
): Promise<void> {
  const id = checkId('scheduleId', scheduleId, 'schedule id');
  const spec: RequestSpec =
    action === 'delete'
      ? { method: 'DELETE', path: ['v2', 'schedules', id], ...signalOf(options) }
      : { method: 'PATCH', path: ['v2', 'schedules', id, action], retrySafe: true, ...signalOf(options) };
  await connection.requester.request(spec);
}

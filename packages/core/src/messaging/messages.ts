import { expectObject, ValidationError } from '../errors';
import type { BulkAction, LogEvent, Message } from '../schemas/resources';
import { parseAnswer } from '../schemas/lazy';
import type { ServiceConnection } from './connection';
import {
  checkId,
  checkIds,
  count,
  filterQuery,
  getResource,
  paginate,
  signalOf,
  type LogFilter,
  type MessageFilter,
  type Page,
  type PageOptions,
} from './listing';

// Messages still pending (get, run now, cancel) and the logs: every state change of every message.

/** `GET /v2/messages/{id}`: a message that is not delivered yet (a delivered one is a `NotFoundError`). */
export function getMessage(connection: ServiceConnection, messageId: string, options?: { signal?: AbortSignal }): Promise<Message> {
  const id = checkId('messageId', messageId, 'message id (msg_...)');
  return getResource(connection, ['v2', 'messages', id], 'message', options);
}

/**
 * `POST /v2/messages/{id}/retry` (the service's "retry now"): a message waiting out a delay, a
 * workflow sleep or a retry's backoff is attempted now. No attempt is added: its retry count stays.
 * One that is not waiting (delivered, or being delivered) is a `NotFoundError`; one in a queue is refused.
 */
export async function runMessageNow(connection: ServiceConnection, messageId: string, options?: { signal?: AbortSignal }): Promise<void> {
  const id = checkId('messageId', messageId, 'message id (msg_...)');
  // Not retried: a second call after a lost answer would find the message already released (404).
  await connection.requester.request({ method: 'POST', path: ['v2', 'messages', id, 'retry'], ...signalOf(options) });
}

/** What `cancelMany` cancels: the listed messages, every pending one matching a filter, or all. */
export type CancelSelection = { messageIds: readonly string[] } | { filter: MessageFilter; count?: number } | { all: true; count?: number };

/** How many messages a cancel stopped. */
export interface CancelResult {
  cancelled: number;
}

/**
 * `DELETE /v2/messages/{id}`: stops every pending delivery of one message (logged `CANCELED`).
 * A message already delivered or cancelled is a `NotFoundError`.
 */
export function cancelMessage(connection: ServiceConnection, messageId: string, options?: { signal?: AbortSignal }): Promise<CancelResult> {
  const id = checkId('messageId', messageId, 'message id (msg_...)');
  return connection.requester.requestJson({ method: 'DELETE', path: ['v2', 'messages', id], ...signalOf(options) }, (value, url) =>
    // The service answers `{ "cancelled": 1 }`; an empty 202 (as the docs show it) means the same.
    value === undefined ? { cancelled: 1 } : parseAnswer('cancelResult', value, url),
  );
}

/** `DELETE /v2/messages`: cancels the listed messages, those matching a filter, or all pending ones. */
export function cancelMessages(
  connection: ServiceConnection,
  selection: CancelSelection,
  options?: { signal?: AbortSignal },
): Promise<CancelResult> {
  expectObject(selection, 'selection', '{ messageIds }, { filter } or { all: true }');
  const query = selectionQuery(selection);
  return connection.requester.requestJson({ method: 'DELETE', path: ['v2', 'messages'], query, ...signalOf(options) }, (value, url) =>
    parseAnswer('cancelResult', value, url),
  );
}

/**
 * `DELETE /v2/messages?async=true`: the same cancel, run by the service in the background as a bulk
 * action (for a filter matching many messages); follow it with `bulkActions.get(actionId)`.
 */
export function cancelMessagesInBackground(
  connection: ServiceConnection,
  selection: CancelSelection,
  options?: { signal?: AbortSignal },
): Promise<{ actionId: string }> {
  expectObject(selection, 'selection', '{ messageIds }, { filter } or { all: true }');
  const query = { ...selectionQuery(selection), async: 'true' };
  return connection.requester.requestJson({ method: 'DELETE', path: ['v2', 'messages'], query, ...signalOf(options) }, (value, url) =>
    parseAnswer('bulkActionStarted', value, url).then(({ actionId }) => ({ actionId })),
  );
}

/** `GET /v2/bulkActions/{actionId}`: a bulk action's state (`IN_PROGRESS`, `FINISHED`) and progress. */
export function getBulkAction(connection: ServiceConnection, actionId: string, options?: { signal?: AbortSignal }): Promise<BulkAction> {
  const id = checkId('actionId', actionId, 'bulk action id');
  return getResource(connection, ['v2', 'bulkActions', id], 'bulkAction', options);
}

function selectionQuery(selection: CancelSelection): Record<string, string | number | string[] | undefined> {
  const keys = Object.keys(selection);
  const given = selection as { messageIds?: unknown; filter?: unknown; all?: unknown; count?: unknown };
  const modes = ['messageIds', 'filter', 'all'].filter((key) => keys.includes(key));
  if (modes.length !== 1) {
    throw new ValidationError('selection', 'give exactly one of { messageIds }, { filter } or { all: true }');
  }
  for (const key of keys) {
    if (![...modes, 'count'].includes(key) || (key === 'count' && modes[0] === 'messageIds')) {
      throw new ValidationError(
        key,
        `unknown option for ${modes[0]}; known options are ${modes[0]}${modes[0] === 'messageIds' ? '' : ', count'}`,
      );
    }
  }
  if (given.messageIds !== undefined) return { messageIds: checkIds('messageIds', given.messageIds, 'message id') };
  const size = given.count === undefined ? undefined : count(given.count);
  if (given.all !== undefined) {
    if (given.all !== true) throw new ValidationError('all', 'expected true, to cancel every pending message');
    return { count: size };
  }
  const query = filterQuery(given.filter as object, []);
  if (Object.values(query).every((value) => value === undefined)) {
    throw new ValidationError('filter', 'an empty filter would cancel everything; use { all: true } to mean that');
  }
  return { ...(query as Record<string, string | number | string[] | undefined>), count: size };
}

/** A page of the logs: every state change of every message, newest first. */
export interface LogPage {
  cursor: string | undefined;
  events: LogEvent[];
}

/** `GET /v2/events`: one page of the logs matching `filter`. */
export async function listLogs(connection: ServiceConnection, filter: LogFilter & PageOptions = {}): Promise<LogPage> {
  const { signal, ...rest } = filter;
  const query = filterQuery(rest, ['messageId', 'state', 'cursor', 'count']);
  const page = await getResource(connection, ['v2', 'events'], 'logPage', { query, ...signalOf({ signal }) });
  return { cursor: page.cursor, events: page.events };
}

/**
 * Every log event matching `filter`, page after page.
 *
 * @example
 * for await (const event of client.logs.iterate({ messageId })) console.log(event.state, event.time);
 */
export function iterateLogs(
  connection: ServiceConnection,
  filter: LogFilter & PageOptions = {},
): AsyncGenerator<LogEvent, void, undefined> {
  expectObject(filter, 'filter', 'an object of filters');
  return paginate(filter.cursor, async (cursor): Promise<Page<LogEvent>> => {
    const page = await listLogs(connection, { ...filter, ...(cursor !== undefined ? { cursor } : {}) });
    return { cursor: page.cursor, items: page.events };
  });
}

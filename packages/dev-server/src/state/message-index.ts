import { type DevState, loggedMessage, logIndex } from './dev-state';
import type { LogRecord, MessageRecord } from './records';

// What a message's story needs without a pass over every pending message: callbacks and resends by
// the message they came from (kept by `reduce`, so a replayed journal rebuilds it), and one pass over
// the kept log (at most its limit of entries) for the entries of the few messages a story shows. And
// the log entries that name a pending message by id (stored-messages.ts), given the message as it leaves.

/** Notes a callback's or a resend's origin, for the origin's story. */
export function noteOrigin(state: DevState, message: MessageRecord): void {
  // Called for every log entry and pending message: most have no origin, and cost no allocation here.
  if (message.sourceMessageId === undefined && message.resentFrom === undefined) return;
  for (const origin of [message.sourceMessageId, message.resentFrom]) {
    if (origin === undefined) continue;
    let ids = state.offspring.get(origin);
    if (!ids) state.offspring.set(origin, (ids = new Set()));
    ids.add(message.id);
  }
}

/**
 * After the oldest log entries were dropped (their messages given): a callback or resend that is no
 * longer pending and has no kept entry left is no longer known, and leaves its origin's list.
 */
export function forgetDroppedOffspring(state: DevState, droppedMessages: readonly MessageRecord[]): void {
  const candidates = droppedMessages.filter(
    (message) => (message.sourceMessageId !== undefined || message.resentFrom !== undefined) && !state.pending.has(message.id),
  );
  if (candidates.length === 0) return;
  const kept = new Set<string>();
  for (const entry of state.logs) kept.add(entry.messageId);
  for (const message of candidates) {
    if (kept.has(message.id)) continue;
    for (const origin of [message.sourceMessageId, message.resentFrom]) {
      const ids = origin === undefined ? undefined : state.offspring.get(origin);
      if (origin === undefined || !ids) continue;
      ids.delete(message.id);
      if (ids.size === 0) state.offspring.delete(origin);
    }
  }
}

/** The kept log entries of `ids`, oldest first, each with the message as it was logged: one pass over the log. */
export function loggedEntries(state: DevState, ids: ReadonlySet<string>): Map<string, { entries: LogRecord[]; messages: MessageRecord[] }> {
  const found = new Map<string, { entries: LogRecord[]; messages: MessageRecord[] }>();
  state.logs.forEach((entry, index) => {
    if (!ids.has(entry.messageId)) return;
    let logged = found.get(entry.messageId);
    if (!logged) found.set(entry.messageId, (logged = { entries: [], messages: [] }));
    logged.entries.push(entry);
    logged.messages.push(loggedMessage(state, index));
  });
  return found;
}

/** The message `id` as the server still knows it: pending, or as last logged. */
export function knownMessage(state: DevState, id: string): MessageRecord | undefined {
  const pending = state.pending.get(id);
  if (pending) return pending;
  for (let index = state.logs.length - 1; index >= 0; index -= 1)
    if (state.logs[index]!.messageId === id) return loggedMessage(state, index);
  return undefined;
}

// The entries that name a pending message by id are indexed only once a message leaves: a restart
// logs tens of thousands of sends by id and drops most of those entries at once (the log keeps
// LOG_LIMIT), and an index kept up meanwhile was a tenth of the restart.

/** Notes that `entry` names its message, pending and left in the journal, by id. */
export function notePendingRef(state: DevState, id: string, entry: LogRecord): void {
  if (state.pendingRefs !== undefined) addPendingRef(state.pendingRefs, id, entry);
}

/**
 * The log entries of `messages`, just left in the journal (pending-messages.ts `putAside`) and still
 * there, name them by id from now on, as a restart's do: the log, which keeps its last LOG_LIMIT
 * entries, would otherwise keep each record alive until its entry is dropped, long enough to be
 * collected only with the old generation. One pass from the newest entry until all are found.
 */
export function nameInLog(state: DevState, messages: ReadonlySet<MessageRecord>): void {
  const { logs, logMessages } = state;
  let left = messages.size;
  for (let index = logMessages.length - 1; index >= 0 && left > 0; index -= 1) {
    const message = logMessages[index]!;
    if (typeof message === 'string' || !messages.has(message)) continue;
    // Never attempted: its one entry is its `CREATED`.
    left -= 1;
    if (state.pending.held(message.id) !== undefined || !state.pending.has(message.id)) continue;
    logMessages[index] = message.id;
    notePendingRef(state, message.id, logs[index]!);
  }
}

/**
 * Takes message `id` out of the pending ones, and gives the log entries that named it by id the
 * message itself (it can no longer be read from the pending ones). Every change that takes a pending
 * message out goes through here.
 */
export function takePending(state: DevState, id: string): MessageRecord | undefined {
  const message = state.pending.delete(id);
  if (message === undefined) return undefined;
  state.pendingRefs ??= indexPendingRefs(state);
  const entries = state.pendingRefs.get(id);
  if (entries === undefined) return message;
  state.pendingRefs.delete(id);
  for (const entry of Array.isArray(entries) ? entries : [entries]) {
    const index = logIndex(state.logs, entry);
    if (state.logs[index] === entry) state.logMessages[index] = message;
  }
  return message;
}

/** A dropped log entry named its pending message by id: it no longer needs the message when that leaves. */
export function forgetPendingRef(state: DevState, id: string, entry: LogRecord): void {
  const entries = state.pendingRefs?.get(id);
  if (entries === undefined) return;
  const rest = Array.isArray(entries) ? entries.filter((kept) => kept !== entry) : [];
  if (rest.length > 0) state.pendingRefs!.set(id, rest.length === 1 ? rest[0]! : rest);
  else state.pendingRefs!.delete(id);
}

/** The kept entries that name their message by id, by that id: one pass over the log. */
function indexPendingRefs(state: DevState): Map<string, LogRecord | LogRecord[]> {
  const refs = new Map<string, LogRecord | LogRecord[]>();
  state.logMessages.forEach((message, index) => {
    if (typeof message === 'string') addPendingRef(refs, message, state.logs[index]!);
  });
  return refs;
}

function addPendingRef(refs: Map<string, LogRecord | LogRecord[]>, id: string, entry: LogRecord): void {
  // One entry per message, but for a message some entries of which a snapshot restored.
  const entries = refs.get(id);
  refs.set(id, entries === undefined ? entry : [...(Array.isArray(entries) ? entries : [entries]), entry]);
}

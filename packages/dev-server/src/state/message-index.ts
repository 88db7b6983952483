import type { DevState } from './dev-state';
import type { LogRecord, MessageRecord } from './records';

// The kept log entries by message, and callbacks and resends by the message they came from: a
// message's story (polled every second by an open console) then costs what that message holds, not a
// pass over every pending message and every kept entry. Maintained by `reduce` alone, so a replayed
// journal rebuilds it.

/** Files a kept log entry under its message, in log order; notes the message's origin. */
export function indexLogEntry(state: DevState, message: MessageRecord, entry: LogRecord): void {
  let logged = state.logsByMessage.get(entry.messageId);
  if (!logged) {
    logged = { entries: [], messages: [] };
    state.logsByMessage.set(entry.messageId, logged);
    noteOrigin(state, message);
  }
  // Nearly always the newest; an entry written late (an attempt's ACTIVE) moves back to its place.
  let at = logged.entries.length;
  while (at > 0 && !before(logged.entries[at - 1]!, entry)) at -= 1;
  logged.entries.splice(at, 0, entry);
  logged.messages.splice(at, 0, message);
}

/** Notes a callback's or a resend's origin, for the origin's story. */
export function noteOrigin(state: DevState, message: MessageRecord): void {
  for (const origin of [message.sourceMessageId, message.resentFrom]) {
    if (origin === undefined) continue;
    let ids = state.offspring.get(origin);
    if (!ids) state.offspring.set(origin, (ids = new Set()));
    ids.add(message.id);
  }
}

/**
 * Takes the dropped (oldest) log entries out of the index. A message none of whose entries is kept
 * and that is not pending is no longer known: it leaves its origins' lists too.
 */
export function forgetDroppedEntries(state: DevState, dropped: LogRecord[]): void {
  const gone = new Map<string, MessageRecord>();
  for (const entry of dropped) {
    const logged = state.logsByMessage.get(entry.messageId);
    if (!logged) continue;
    // The dropped entries are the oldest of all, so of their message too: its first ones.
    const at = logged.entries[0] === entry ? 0 : logged.entries.indexOf(entry);
    if (at < 0) continue;
    const [message] = logged.messages.splice(at, 1);
    logged.entries.splice(at, 1);
    if (logged.entries.length === 0) {
      state.logsByMessage.delete(entry.messageId);
      if (message && !state.messages.has(entry.messageId)) gone.set(entry.messageId, message);
    }
  }
  for (const [id, message] of gone) {
    for (const origin of [message.sourceMessageId, message.resentFrom]) {
      const ids = origin === undefined ? undefined : state.offspring.get(origin);
      ids?.delete(id);
      if (origin !== undefined && ids?.size === 0) state.offspring.delete(origin);
    }
  }
}

function before(a: LogRecord, b: LogRecord): boolean {
  return a.time < b.time || (a.time === b.time && a.order < b.order);
}

/** The message `id` as the server still knows it: pending, or in the kept logs. */
export function knownMessage(state: DevState, id: string): MessageRecord | undefined {
  return state.messages.get(id)?.record ?? state.logsByMessage.get(id)?.messages.at(-1);
}

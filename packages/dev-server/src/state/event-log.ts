import { LOG_LIMIT, logBefore, logIndex, type DevState } from './dev-state';
import { forgetDroppedOffspring, forgetPendingRef, noteOrigin, notePendingRef } from './message-index';
import type { LogRecord, MessageRecord } from './records';

// The message log (`/v2/logs`, a message's story): entries kept in time order, the newest LOG_LIMIT
// of them, each with its message (or the id of one still pending).

/** A log this long drops its oldest down to LOG_LIMIT, in one go (a tenth more than the limit, and one). */
const DROP_AT_LENGTH = Math.floor(LOG_LIMIT * 1.1) + 1;

/** What a state change logs, beside its order and message. */
export type LogFields = Omit<LogRecord, 'order' | 'messageId'>;

/**
 * A log entry with every field in one order, absent ones undefined: three are made per delivered
 * message, and a spread of each state's own fields gave them several shapes and a runtime copy each.
 * Two shapes now: this one, and `CREATED`'s.
 */
export function logEntry(order: number, messageId: string, time: number, fields: LogFields): LogRecord {
  // A new message's entry has the four fields alone: a replay makes one per pending message, and the
  // full shape is twice its size.
  if (fields.state === 'CREATED') return { order, time, state: fields.state, messageId };
  return {
    order,
    time,
    state: fields.state,
    messageId,
    nextDeliveryTime: fields.nextDeliveryTime,
    error: fields.error,
    responseStatus: fields.responseStatus,
    delaySource: fields.delaySource,
    attempt: fields.attempt,
  };
}

/**
 * Keeps the log in time order (then by `order`), dropping the oldest beyond the limit. Most entries
 * are the newest; an attempt's ACTIVE entry is written when the attempt ends, after entries of other
 * messages that happened meanwhile, and a snapshot groups entries by message: those are put back in
 * their place, so the listing is strictly newest first.
 */
export function keepLog(state: DevState, message: MessageRecord | string, entry: LogRecord): void {
  const last = state.logs.at(-1);
  if (last === undefined || logBefore(last, entry)) {
    state.logs.push(entry);
    state.logMessages.push(message);
  } else {
    const index = logIndex(state.logs, entry);
    state.logs.splice(index, 0, entry);
    state.logMessages.splice(index, 0, message);
  }
  state.nextLogOrder = Math.max(state.nextLogOrder, entry.order + 1);
  // A finished callback or resend restored from a snapshot comes back through its log entries only.
  if (typeof message === 'string') notePendingRef(state, message, entry);
  else noteOrigin(state, message);
  // Dropped in a batch: a shift per entry would make every log write O(n).
  if (state.logs.length >= DROP_AT_LENGTH) dropOldest(state, state.logs.length - LOG_LIMIT);
}

function dropOldest(state: DevState, count: number): void {
  const droppedEntries = state.logs.splice(0, count);
  const records: MessageRecord[] = [];
  state.logMessages.splice(0, count).forEach((dropped, index) => {
    if (typeof dropped !== 'string') records.push(dropped);
    else forgetPendingRef(state, dropped, droppedEntries[index]!);
  });
  forgetDroppedOffspring(state, records);
}

/**
 * After a repair skipped damaged records: the entries that name by id a message no longer pending (a
 * snapshot's line of it was skipped) go with it, as every entry named so is of a pending message.
 */
export function dropEntriesOfLostMessages(state: DevState): void {
  const { logs, logMessages } = state;
  let kept = 0;
  for (let index = 0; index < logs.length; index += 1) {
    const message = logMessages[index]!;
    if (typeof message === 'string' && !state.pending.has(message)) {
      forgetPendingRef(state, message, logs[index]!);
      continue;
    }
    logs[kept] = logs[index]!;
    logMessages[kept] = message;
    kept += 1;
  }
  logs.length = kept;
  logMessages.length = kept;
}

/**
 * The `CREATED` entries of consecutive sends a replay read as bytes, not yet in the log. A crash
 * leaves a line per send and the log keeps the last 10,000: making 90,000 entries to drop them was a
 * tenth of a 100,000-message replay. {@link flushCreated} puts in what keeping them one by one keeps.
 */
export interface CreatedRun {
  ids: string[];
  times: number[];
  /** The first entry's order; the others follow it one by one. */
  firstOrder: number;
}

export const createdRun = (): CreatedRun => ({ ids: [], times: [], firstOrder: 0 });

/**
 * Adds the `CREATED` entry of message `id`, sent at `time`, to `run`, when {@link keepLog} would only
 * append it: it comes after every kept entry, and no pending message is indexed by its entries yet
 * (which keepLog would do). Otherwise puts the run in the log, and returns false: keep it yourself.
 */
export function deferCreated(state: DevState, run: CreatedRun, id: string, time: number): boolean {
  const last = run.ids.length > 0 ? run.times[run.times.length - 1] : state.logs.at(-1)?.time;
  if (state.pendingRefs !== undefined || (last !== undefined && last > time)) {
    flushCreated(state, run);
    return false;
  }
  if (run.ids.length === 0) run.firstOrder = state.nextLogOrder;
  run.ids.push(id);
  run.times.push(time);
  state.nextLogOrder += 1;
  return true;
}

/** Puts `run` in the log as keeping its entries one by one would have, and empties it. */
export function flushCreated(state: DevState, run: CreatedRun): void {
  const count = run.ids.length;
  if (count === 0) return;
  // One by one, the log drops its oldest each time it reaches DROP_AT_LENGTH: that many, as often as it does.
  const total = state.logs.length + count;
  const dropsOf = DROP_AT_LENGTH - LOG_LIMIT;
  const dropped = total >= DROP_AT_LENGTH ? (Math.floor((total - DROP_AT_LENGTH) / dropsOf) + 1) * dropsOf : 0;
  const fromLog = Math.min(dropped, state.logs.length);
  for (let index = dropped - fromLog; index < count; index += 1) {
    const id = run.ids[index]!;
    state.logs.push(logEntry(run.firstOrder + index, id, run.times[index]!, { time: run.times[index]!, state: 'CREATED' }));
    state.logMessages.push(id);
  }
  if (fromLog > 0) dropOldest(state, fromLog);
  run.ids.length = 0;
  run.times.length = 0;
}

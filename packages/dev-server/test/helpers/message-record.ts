import type { MessageRecord } from '../../src/state/records';

/** A clock reading for state tests: the records' times, far from any real clock's. */
export const NOW = 1_800_000_000_000;

/** A pending message record as the reducer keeps it: a plain message to queue `q`, due `NOW`, changed by `extra`. */
export function messageRecord(id: string, seq: number, extra: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id,
    seq,
    kind: 'message',
    queue: 'q',
    url: 'https://app.test/hook',
    method: 'POST',
    body: 'x',
    forwardHeaders: {},
    sourceHeader: {},
    maxRetries: 3,
    timeoutSeconds: 900,
    notBefore: NOW,
    dueAt: NOW,
    createdAt: NOW,
    callerIp: '127.0.0.1',
    ...extra,
  };
}

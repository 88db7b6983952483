import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRecordLine } from '../src/journal/record-line';
import {
  decodeRecord,
  type EncodedRecord,
  encodeRecord,
  sharedAnswerHeaders,
  sharedForwardHeaders,
  sharedSourceHeaders,
} from '../src/state/message-codec';
import { isEncodedRecord } from '../src/state/record-shapes';
import type { DevRecord, MessageRecord } from '../src/state/records';
import { NOW } from './helpers/message-record';

/** Any message the dev server could hold: every optional field present or not, bodies of any bytes. */
const messageArbitrary: fc.Arbitrary<MessageRecord> = fc
  .record(
    {
      id: fc.stringMatching(/^msg_[A-Za-z0-9_-]{24}$/),
      seq: fc.nat(),
      kind: fc.constantFrom('message', 'callback', 'failure-callback'),
      queue: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
      url: fc.webUrl(),
      method: fc.constantFrom('POST', 'GET', 'PUT'),
      body: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      contentType: fc.constantFrom('application/json', 'text/plain'),
      forwardHeaders: fc.dictionary(fc.stringMatching(/^x-[a-z]{1,6}$/), fc.string({ maxLength: 8 })),
      sourceHeader: fc.dictionary(
        fc.stringMatching(/^Service-[A-Z][a-z]{1,6}$/),
        fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 2 }),
      ),
      maxRetries: fc.nat(20),
      retryDelay: fc.constant('1000 * retried'),
      timeoutSeconds: fc.integer({ min: 1, max: 7200 }),
      createdOffset: fc.integer({ min: -5, max: 5 }),
      delay: fc.nat(86_400_000),
      scaled: fc.boolean(),
      callerIp: fc.ipV4(),
      label: fc.constant('a,b'),
      flowControl: fc.record({ key: fc.constant('k'), parallelism: fc.integer({ min: 1, max: 5 }) }),
      workflow: fc.record({ runId: fc.constant('wfr_1'), url: fc.webUrl(), createdAt: fc.constant(NOW) }),
    },
    {
      requiredKeys: [
        'id',
        'seq',
        'kind',
        'url',
        'method',
        'body',
        'forwardHeaders',
        'sourceHeader',
        'maxRetries',
        'timeoutSeconds',
        'createdOffset',
        'delay',
        'scaled',
        'callerIp',
      ],
    },
  )
  .map(({ createdOffset, delay, scaled, ...fields }) => {
    const createdAt = NOW + createdOffset;
    const notBefore = createdAt + delay;
    return { ...fields, createdAt, notBefore, dueAt: scaled ? createdAt + Math.floor(delay / 10) : notBefore } as MessageRecord;
  });

/** What a restart reads back: the record encoded, written as JSON, parsed and decoded. */
const throughJournal = (record: DevRecord, isPending: (id: string) => boolean = () => false): DevRecord => {
  const encoded = encodeRecord(record, isPending);
  const parsed = JSON.parse(JSON.stringify(encoded)) as EncodedRecord;
  expect(isEncodedRecord(parsed)).toBe(true);
  return decodeRecord(parsed);
};

describe('a message in the journal', () => {
  it('reads back as the same message, whatever its fields and body bytes', () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { minLength: 1, maxLength: 3 }), (messages) => {
        const record: DevRecord = { type: 'messages.accepted', at: NOW, messages };
        expect(throughJournal(record)).toEqual(record);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('restores a pending message with its progress, and log entries name a pending message instead of copying it', () => {
    fc.assert(
      fc.property(messageArbitrary, fc.nat(5), fc.boolean(), (message, retried, started) => {
        const restored: DevRecord = { type: 'message.restored', message, retried, dueAt: message.dueAt + retried, started };
        expect(throughJournal(restored)).toEqual(restored);
        const logs: DevRecord = {
          type: 'logs.restored',
          logs: [{ order: 1, time: NOW, state: 'CREATED', messageId: message.id }],
          messages: [message],
        };
        const named = encodeRecord(logs, (id) => id === message.id);
        expect(JSON.stringify(named)).not.toContain(JSON.stringify(message.body));
        // Named, it is not in the record read back: the reducer finds it among the pending messages (state.test.ts).
        expect(throughJournal(logs, (id) => id === message.id)).toEqual({ ...logs, messages: [] });
        expect(throughJournal(logs)).toEqual(logs);
        // Journals written before named the pending message by its id.
        const legacy = { type: 'logs.restored', logs: logs.logs, messages: [message.id] } as unknown as EncodedRecord;
        expect(decodeRecord(legacy)).toEqual({ ...logs, messages: [] });
      }),
      { seed: 7, numRuns: 100 },
    );
  });

  it('keeps a 200-byte message in under 400 bytes of journal line', () => {
    const message: MessageRecord = {
      id: 'msg_hVwfYy3EwkAoQ5SITn4OKlcn',
      seq: 25_340,
      kind: 'message',
      url: 'https://app.example.com/api/orders',
      method: 'POST',
      body: JSON.stringify({ orderId: 'o-1', note: 'x'.repeat(173) }),
      forwardHeaders: {},
      sourceHeader: { 'Upstash-Delay': ['1h'] },
      maxRetries: 5,
      timeoutSeconds: 7200,
      notBefore: NOW + 3_600_000,
      dueAt: NOW + 3_600_000,
      createdAt: NOW,
      callerIp: '127.0.0.1',
    };
    expect(Buffer.byteLength(message.body)).toBe(200);
    const line = encodeRecordLine(encodeRecord({ type: 'messages.accepted', at: NOW, messages: [message] }));
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(400);
  });

  it('reads messages of journals written before the tuple form (every field by name, the body in base64)', () => {
    const legacy = {
      type: 'messages.accepted',
      at: NOW,
      messages: [
        {
          id: 'msg_1',
          seq: 1,
          kind: 'message',
          url: 'https://app.test/x',
          method: 'POST',
          bodyBase64: Buffer.from([0xff, 0x00, 0x41]).toString('base64'),
          forwardHeaders: {},
          sourceHeader: {},
          maxRetries: 3,
          timeoutSeconds: 900,
          notBefore: NOW,
          dueAt: NOW,
          createdAt: NOW,
          callerIp: '::1',
        },
      ],
    };
    expect(isEncodedRecord(legacy)).toBe(true);
    const decoded = decodeRecord(legacy as EncodedRecord) as Extract<DevRecord, { type: 'messages.accepted' }>;
    expect(Buffer.from(decoded.messages[0]!.body, 'latin1')).toEqual(Buffer.from([0xff, 0x00, 0x41]));
    expect(decoded.messages[0]).not.toHaveProperty('bodyBase64');
  });

  it('shares one copy of each header set, whatever order the sets come in and whichever kind takes them', () => {
    const sharers = [sharedForwardHeaders, sharedSourceHeaders, sharedAnswerHeaders];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.array(fc.constantFrom('1', '2', ''), { minLength: 1, maxLength: 2 }), {
              maxKeys: 3,
            }),
            fc.constantFrom(0, 1, 2),
          ),
          { maxLength: 20 },
        ),
        (sets) => {
          const seen = new Map<string, Readonly<Record<string, unknown>>>();
          for (const [set, sharer] of sets) {
            const shared = sharers[sharer]!(structuredClone(set));
            // The same names, order and values as given: never another set's.
            expect(JSON.stringify(shared)).toBe(JSON.stringify(set));
            const key = JSON.stringify(set);
            const first = seen.get(key);
            if (first) expect(shared).toBe(first);
            else seen.set(key, shared);
          }
        },
      ),
    );
  });

  it('refuses a tuple with a field of the wrong type', () => {
    const record = encodeRecord({ type: 'messages.accepted', at: NOW, messages: [] });
    expect(isEncodedRecord({ ...record, m: [['msg_1', '1', 'https://a.test', 'x', {}, 3, 900, 0, 0, '::1']] })).toBe(false);
    expect(isEncodedRecord({ ...record, m: [['msg_1', 1, 'https://a.test', 'x', {}, 3, 900, 0, 0, '::1']] })).toBe(true);
  });
});

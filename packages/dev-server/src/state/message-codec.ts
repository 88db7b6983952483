import type { HeaderValues } from './header-values';
import type { DevRecord, DlqEntry, MessageRecord, WorkflowRunRecord } from './records';

// How a message is kept. In memory, the values many messages repeat (destination URLs, caller
// addresses, content types, header sets) are one shared copy each. In the journal, a message is a
// tuple of its always-present fields plus an object of the rest, without defaults: field names and
// base64 were half of a 200-byte message's line (docs/benchmarks.md, the scale section).

/**
 * A bounded table of shared values: a client sending ever-new values only loses the sharing. 100,000
 * pending messages to one URL then hold one copy of it, not 100,000.
 */
class Interned<T> {
  private readonly values = new Map<string, T>();

  /** The value kept under `key`, or `value` (kept from now on). */
  get(key: string, value: T): T {
    const kept = this.values.get(key);
    if (kept !== undefined) return kept;
    if (this.values.size >= 1024) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  has(key: string): boolean {
    return this.values.has(key);
  }
}

const strings = new Interned<string>();
const headerSets = new Interned<Readonly<Record<string, unknown>>>();
const NO_HEADERS: Readonly<Record<string, never>> = Object.freeze({});

/** `value`, as the one copy every message with the same value shares. */
export const sharedString = (value: string): string => strings.get(value, value);

/** Whether `value` was shared before (a destination URL already validated once). */
export const isSharedString = (value: string): boolean => strings.has(value);

/**
 * Shares header sets (forwarded headers, source headers, a destination's answers): each set is one
 * copy every message (or logged attempt) with the same one holds.
 */
function headerSharer(): <T extends Readonly<Record<string, unknown>>>(headers: T) => T {
  // The set shared last: messages come in runs with the same headers (one client's sends, a replayed
  // journal), and comparing with it costs less than the key (a JSON text) a lookup needs. One per kind
  // of set, so that kinds taken in turn do not each push the other out.
  let lastShared: Readonly<Record<string, unknown>> = NO_HEADERS;
  let lastNames: readonly string[] = [];
  return <T extends Readonly<Record<string, unknown>>>(headers: T): T => {
    for (const _ in headers) {
      if (sameHeaders(lastShared, lastNames, headers)) return lastShared as T;
      lastShared = headerSets.get(JSON.stringify(headers), headers);
      lastNames = Object.keys(lastShared);
      return lastShared as T;
    }
    return NO_HEADERS as T;
  };
}

/** A message's forwarded headers, shared with every message that has the same ones. */
export const sharedForwardHeaders = headerSharer();
/** A message's source headers (its enqueue request's), shared likewise. */
export const sharedSourceHeaders = headerSharer();
/** The headers of a destination's answer, kept with the attempt's log entry, shared likewise. */
export const sharedAnswerHeaders = headerSharer();

/** Whether two header sets (`names`: the first's, listed once) are the same names, in the same order, with the same values (a string or a list). */
function sameHeaders(a: Readonly<Record<string, unknown>>, names: readonly string[], b: Readonly<Record<string, unknown>>): boolean {
  const others = Object.keys(b);
  if (names.length !== others.length) return false;
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    if (name !== others[index]) return false;
    const value = a[name];
    const other = b[name];
    if (value === other) continue;
    if (!Array.isArray(value) || !Array.isArray(other) || value.length !== other.length) return false;
    for (let item = 0; item < value.length; item++) if (value[item] !== other[item]) return false;
  }
  return true;
}

/**
 * A message in the journal: `[id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created
 * (createdAt - the record's time, usually 0), delay (notBefore - createdAt), callerIp, rest?]`; `rest`
 * holds every other field that is not its default (`kind` "message", `method` "POST", no forwarded
 * headers, `dueAt` = `notBefore`).
 */
type EncodedMessage = [string, number, string, string, HeaderValues, number, number, number, number, string, Record<string, unknown>?];

const DEFAULTS = { kind: 'message', method: 'POST' } as const;
const IN_TUPLE = new Set([
  'id',
  'seq',
  'url',
  'body',
  'sourceHeader',
  'maxRetries',
  'timeoutSeconds',
  'createdAt',
  'notBefore',
  'callerIp',
  'kind',
  'method',
  'forwardHeaders',
  'dueAt',
]);

/** `at`: the time of the record the message is in (0 for a record without one). */
function encodeMessage(message: MessageRecord, at = 0): EncodedMessage {
  // `rest` first, and the tuple made whole once: a closure and a grown array per message were most of
  // what a `/v2/batch` of 1,000 sends allocated here.
  let rest: Record<string, unknown> | undefined;
  if (message.kind !== DEFAULTS.kind) (rest ??= {}).kind = message.kind;
  if (message.method !== DEFAULTS.method) (rest ??= {}).method = message.method;
  for (const _ in message.forwardHeaders) {
    (rest ??= {}).forwardHeaders = message.forwardHeaders;
    break;
  }
  if (message.dueAt !== message.notBefore) (rest ??= {}).dueAt = message.dueAt;
  for (const name in message) if (!IN_TUPLE.has(name)) (rest ??= {})[name] = message[name as keyof MessageRecord];
  const { id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, createdAt, notBefore, callerIp } = message;
  const created = createdAt - at;
  const delay = notBefore - createdAt;
  return rest === undefined
    ? [id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp]
    : [id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp, rest];
}

/** The message an encoded one (either form) stands for; `at`: the time of the record it is in. */
export function decodeMessage(encoded: EncodedMessage | LegacyMessage, at = 0): MessageRecord {
  if (!Array.isArray(encoded)) return decodeLegacy(encoded);
  const [id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp, rest] = encoded;
  const createdAt = at + created;
  const notBefore = createdAt + delay;
  const message: MessageRecord = {
    id,
    seq,
    kind: DEFAULTS.kind,
    url: sharedString(url),
    method: DEFAULTS.method,
    body,
    forwardHeaders: NO_HEADERS,
    sourceHeader: sharedSourceHeaders(sourceHeader),
    maxRetries,
    timeoutSeconds,
    notBefore,
    dueAt: notBefore,
    createdAt,
    callerIp: sharedString(callerIp),
  };
  if (rest) {
    Object.assign(message, rest);
    message.forwardHeaders = sharedForwardHeaders(message.forwardHeaders);
    if (message.contentType !== undefined) message.contentType = sharedString(message.contentType);
  }
  return message;
}

/** A message as journals written before the tuple form hold it: every field by name, the body in base64. */
type LegacyMessage = Omit<MessageRecord, 'body'> & { bodyBase64: string };

function decodeLegacy(legacy: LegacyMessage): MessageRecord {
  const { bodyBase64, ...rest } = legacy;
  return { ...rest, body: Buffer.from(bodyBase64, 'base64').toString('latin1') };
}

/** Whether a decoded JSON value has the shape of an encoded message (either form), fields the reducer reads typed. */
export function isEncodedMessage(value: unknown): boolean {
  if (Array.isArray(value)) {
    return (
      (value.length === 10 || value.length === 11) &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'number' &&
      typeof value[2] === 'string' &&
      typeof value[3] === 'string' &&
      typeof value[4] === 'object' &&
      value[4] !== null &&
      typeof value[5] === 'number' &&
      typeof value[6] === 'number' &&
      typeof value[7] === 'number' &&
      typeof value[8] === 'number' &&
      typeof value[9] === 'string' &&
      (value[10] === undefined || (typeof value[10] === 'object' && value[10] !== null))
    );
  }
  if (typeof value !== 'object' || value === null) return false;
  const legacy = value as Record<string, unknown>;
  return (
    typeof legacy.id === 'string' &&
    typeof legacy.seq === 'number' &&
    typeof legacy.url === 'string' &&
    typeof legacy.bodyBase64 === 'string' &&
    typeof legacy.forwardHeaders === 'object' &&
    typeof legacy.sourceHeader === 'object' &&
    typeof legacy.dueAt === 'number'
  );
}

/**
 * A journal record as written: every message in it encoded. The most common one, `messages.accepted`,
 * is written as `{ type: 'accepted', at, m: [...] }` (one per enqueue: its envelope is a tenth of a
 * small message's line); journals written before keep the long form, which is read too.
 */
export type EncodedRecord = { type: DevRecord['type'] | 'accepted' } & Record<string, unknown>;

const encodeEntry = (entry: DlqEntry) => ({ ...entry, message: encodeMessage(entry.message) });
const encodeRun = (run: WorkflowRunRecord) => ({ ...run, trigger: encodeMessage(run.trigger) });

/**
 * The record as the journal keeps it. `message.restored` drops what is its default (no attempt yet,
 * due when the message said); `logs.restored` leaves out a message that is still pending (its entries
 * name it) (the snapshot restores pending messages first).
 */
export function encodeRecord(record: DevRecord, isPending: (id: string) => boolean = () => false): EncodedRecord {
  switch (record.type) {
    case 'batch':
      return { type: 'batch', records: record.records.map((inner) => encodeRecord(inner, isPending)) };
    case 'messages.accepted': {
      const { type: _type, messages, ...rest } = record;
      return { type: 'accepted', ...rest, m: messages.map((message) => encodeMessage(message, record.at)) };
    }
    case 'dlq.retried':
      return { ...record, messages: record.messages.map((message) => encodeMessage(message, record.at)) };
    case 'attempt':
      return {
        ...record,
        spawned: record.spawned.map((message) => encodeMessage(message, record.at)),
        ...(record.dlq ? { dlq: encodeEntry(record.dlq) } : {}),
      };
    case 'dlq.retriggered':
      return { ...record, message: encodeMessage(record.message, record.at) };
    case 'dlq.restored':
      return { ...record, entry: encodeEntry(record.entry) };
    case 'run.restored':
      return { ...record, run: encodeRun(record.run) };
    case 'message.restored': {
      const { message, retried, dueAt, started } = record;
      return {
        type: record.type,
        message: encodeMessage(message),
        ...(retried === 0 ? {} : { retried }),
        ...(dueAt === message.dueAt ? {} : { dueAt }),
        ...(started ? { started } : {}),
      };
    }
    case 'logs.restored':
      // A pending message is found again by its entries' `messageId`: the snapshot restores it first.
      return { ...record, messages: record.messages.filter((message) => !isPending(message.id)).map((message) => encodeMessage(message)) };
    default:
      return record;
  }
}

/**
 * The record an encoded one stands for. A message `logs.restored` only names (a pending one) is not in
 * its `messages`: the reducer finds it among the pending messages.
 */
export function decodeRecord(encoded: EncodedRecord): DevRecord {
  const message = (value: unknown, at = 0) => decodeMessage(value as EncodedMessage, at);
  if (encoded.type === 'accepted') {
    const { type: _type, m, ...rest } = encoded as { type: 'accepted'; at: number; m: unknown[] };
    return { type: 'messages.accepted', ...rest, messages: m.map((value) => message(value, rest.at)) };
  }
  const record = encoded as unknown as DevRecord & Record<string, unknown>;
  switch (record.type) {
    case 'batch':
      return { type: 'batch', records: (encoded.records as EncodedRecord[]).map((inner) => decodeRecord(inner)) };
    case 'messages.accepted':
    case 'dlq.retried':
      return { ...record, messages: (record.messages as unknown[]).map((value) => message(value, record.at)) };
    case 'attempt':
      return {
        ...record,
        spawned: (record.spawned as unknown[]).map((value) => message(value, record.at)),
        ...(record.dlq ? { dlq: { ...record.dlq, message: message(record.dlq.message) } } : {}),
      };
    case 'dlq.retriggered':
      return { ...record, message: message(record.message, record.at) };
    case 'dlq.restored':
      return { ...record, entry: { ...record.entry, message: message(record.entry.message) } };
    case 'run.restored':
      return { ...record, run: { ...record.run, trigger: message(record.run.trigger) } };
    case 'message.restored': {
      const restored = message(record.message);
      return {
        type: record.type,
        message: restored,
        retried: (encoded.retried as number | undefined) ?? 0,
        dueAt: (encoded.dueAt as number | undefined) ?? restored.dueAt,
        started: (encoded.started as boolean | undefined) ?? false,
      };
    }
    case 'logs.restored':
      // Journals written before named a pending message by its id; now its entries name it.
      return {
        ...record,
        messages: (record.messages as unknown[]).flatMap((value) => (typeof value === 'string' ? [] : [message(value)])),
      };
    default:
      return record;
  }
}

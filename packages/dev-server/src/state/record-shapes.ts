import { type EncodedRecord, isEncodedMessage as isMessage } from './message-codec';

// What a journal record must look like to be replayed: every field the reducer reads, of its type.
// A record that passed its checksum but not this (a broken writer, a hand edit) is damage, reported
// with its file, line and byte like a bad checksum, instead of a TypeError deep in the reducer.
// Cheap on purpose: a replay checks every record, and a start with 100,000 pending messages must stay fast.
// Messages are checked in their journal form (message-codec).

type Shape = Record<string, unknown>;

const isObject = (value: unknown): value is Shape => typeof value === 'object' && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every(isString);
const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const listOf = (value: unknown, check: (value: unknown) => boolean): boolean => Array.isArray(value) && value.every(check);

const isResponse = (value: unknown): boolean =>
  isObject(value) && isNumber(value.status) && isObject(value.headers) && isString(value.bodyBase64);

const isDlqEntry = (value: unknown): boolean =>
  isObject(value) &&
  isString(value.dlqId) &&
  isNumber(value.order) &&
  isNumber(value.at) &&
  isMessage(value.message) &&
  isNumber(value.retried) &&
  optional(value.response, isResponse);

const isRun = (value: unknown): boolean =>
  isObject(value) &&
  isString(value.runId) &&
  isString(value.url) &&
  isNumber(value.createdAt) &&
  isString(value.state) &&
  listOf(value.steps, (step) => isObject(step) && isString(step.messageId) && isString(step.bodyBase64)) &&
  isObject(value.settings) &&
  isMessage(value.trigger);

const isWaiter = (value: unknown): boolean =>
  isObject(value) &&
  isString(value.id) &&
  isString(value.eventId) &&
  isString(value.runId) &&
  isString(value.url) &&
  isString(value.timeoutUrl) &&
  isObject(value.step) &&
  isNumber(value.deadline);

const isLog = (value: unknown): boolean =>
  isObject(value) && isNumber(value.order) && isNumber(value.time) && isString(value.state) && isString(value.messageId);

const isAccepted = (r: Shape, messages: unknown): boolean =>
  isNumber(r.at) &&
  listOf(messages, isMessage) &&
  optional(r.dedupKeys, isStrings) &&
  optional(r.schedule, (schedule) => isObject(schedule) && isString(schedule.id) && isNumber(schedule.time));

const SHAPES: { [T in EncodedRecord['type']]: (record: Shape) => boolean } = {
  // A batch holds records, never another batch.
  batch: (r) => listOf(r.records, (inner) => isEncodedRecord(inner) && (inner as Shape).type !== 'batch'),
  accepted: (r) => isAccepted(r, r.m),
  'messages.accepted': (r) => isAccepted(r, r.messages),
  attempt: (r) =>
    isString(r.id) &&
    isNumber(r.at) &&
    isNumber(r.retried) &&
    isString(r.outcome) &&
    isNumber(r.bytes) &&
    listOf(r.spawned, isMessage) &&
    optional(r.response, isResponse) &&
    optional(r.dlq, isDlqEntry),
  'group.updated': (r) =>
    isString(r.name) && (r.group === null || (isObject(r.group) && isString(r.group.name) && Array.isArray(r.group.endpoints))),
  'dlq.retriggered': (r) => isString(r.dlqId) && isNumber(r.at) && isMessage(r.message),
  'index.created': (r) => isObject(r.index) && isString(r.index.id),
  'messages.cancelled': (r) => isNumber(r.at) && isStrings(r.ids),
  'message.released': (r) => isString(r.id) && isNumber(r.at),
  'fault.set': (r) => isObject(r.fault) && isString(r.fault.id) && isString(r.fault.kind) && isNumber(r.fault.count),
  'fault.applied': (r) => isString(r.id),
  'fault.removed': (r) => isString(r.id),
  'dlq.deleted': (r) => isStrings(r.ids) && optional(r.at, isNumber),
  'dlq.retried': (r) => isNumber(r.at) && isStrings(r.ids) && listOf(r.messages, isMessage),
  'queue.updated': (r) => isString(r.name) && (r.queue === null || (isObject(r.queue) && isString(r.queue.name))),
  'schedule.updated': (r) =>
    isString(r.id) &&
    (r.schedule === null ||
      (isObject(r.schedule) &&
        isString(r.schedule.scheduleId) &&
        isString(r.schedule.cron) &&
        isString(r.schedule.destination) &&
        isStrings(r.schedule.rawHeaders) &&
        isString(r.schedule.bodyBase64))),
  'flow.updated': (r) => isString(r.key) && isObject(r.flow) && isObject(r.flow.pinned),
  'keys.rotated': (r) => isString(r.current) && isString(r.next),
  'run.ended': (r) => isString(r.runId) && isNumber(r.at) && isString(r.state),
  'waiter.added': (r) => isWaiter(r.waiter),
  'waiter.removed': (r) => isString(r.id),
  'message.restored': (r) =>
    isMessage(r.message) &&
    optional(r.retried, isNumber) &&
    optional(r.dueAt, isNumber) &&
    optional(r.started, (v) => typeof v === 'boolean'),
  'dlq.restored': (r) => isDlqEntry(r.entry),
  'dedup.restored': (r) => isString(r.key) && isNumber(r.at) && Array.isArray(r.results),
  'stats.restored': (r) => listOf(r.buckets, (bucket) => Array.isArray(bucket) && isNumber(bucket[0]) && isObject(bucket[1])),
  'run.restored': (r) => isRun(r.run),
  'run.event-stored': (r) => isString(r.runId) && isString(r.eventId) && isString(r.dataBase64),
  'run.event-taken': (r) => isString(r.runId) && isString(r.eventId),
  'logs.restored': (r) => listOf(r.logs, isLog) && listOf(r.messages, (message) => isString(message) || isMessage(message)),
  'counters.restored': (r) => isNumber(r.nextSeq) && isNumber(r.nextDlqOrder) && optional(r.nextLogOrder, isNumber),
};

/** Whether a decoded journal line is a record the reducer can apply once its messages are decoded. */
export function isEncodedRecord(value: unknown): value is EncodedRecord {
  if (!isObject(value) || !isString(value.type) || !Object.hasOwn(SHAPES, value.type)) return false;
  return SHAPES[value.type as EncodedRecord['type']](value);
}

import type { HeaderValues } from './header-values';
// The journal's record types. Every change of the dev server's state is one of these, appended
// before the HTTP answer (or before the engine acts on it), and the state is rebuilt on start by
// replaying them through `reduce`. Records are plain JSON: bodies travel as base64.

/** What a message is: a delivery the user asked for, or a callback the dev server sends about one. */
export type MessageKind = 'message' | 'callback' | 'failure-callback';

/** How a callback or failure callback is called (`<P>-Callback-*`, `<P>-Failure-Callback-*`). */
export interface CallbackSettings {
  url: string;
  method: string;
  /** Undefined: the retries of the original message (the spec: "uses the retry settings of the original request"). */
  retries?: number;
  retryDelay?: string;
  timeoutSeconds?: number;
  delaySeconds?: number;
  /** `<P>-Callback-Forward-X: v` as `x: v`. */
  headers: Record<string, string>;
}

/** The workflow run a message belongs to (`<P>-Workflow-RunId`, `-Url`, `-CreatedAt`). */
export interface WorkflowInfo {
  runId: string;
  url: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** The run's trigger (`<P>-Workflow-Init: true`); its later messages are its steps. */
  init?: true;
  /** `<P>-Workflow-CallType` (`toCallback`: a `context.call`'s third-party request, not a step). */
  callType?: string;
  /** `<P>-Feature-Set` has `LazyFetch`: deliveries carry no body, the SDK fetches the run's steps. */
  lazyFetch?: true;
  /** `<P>-Feature-Set` has `InitialBody`: a failure callback's `sourceBody` is the run's trigger body. */
  initialBody?: true;
  /** On the trigger of a run started by `context.invoke`: the run that gets its result. */
  invoker?: InvokerRecord;
  /** On the trigger of a run restarted from the workflow DLQ: the failed run it starts over. */
  restartOf?: string;
}

/** The run that invoked another (`context.invoke`), and how its Invoke step goes back to it. */
export interface InvokerRecord {
  runId: string;
  url: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** The headers the Invoke step goes back with, as the SDK gave them (`Upstash-Workflow-RunId`, ...). */
  headers: Record<string, string[]>;
  /** The Invoke step as the SDK described it; the invoked run's result is added to it. */
  step: Record<string, unknown>;
}

/** A run waiting for an event (`context.waitForEvent`), until notified or its deadline. */
export interface WaiterRecord {
  /** Run, event and step: one wait of one step. */
  id: string;
  eventId: string;
  runId: string;
  /** Where the Wait step goes back when notified, and when it times out. */
  url: string;
  timeoutUrl: string;
  /** The headers the step goes back with, as the SDK gave them (`Upstash-Workflow-Runid`, ...). */
  timeoutHeaders: Record<string, string[]>;
  /** The Wait step as the SDK described it; the event data or the timeout is added to it. */
  step: Record<string, unknown>;
  /** The timeout as the SDK gave it (`1d`, `120s`). */
  timeout?: string;
  createdAt: number;
  /** Real-clock Unix milliseconds. */
  deadline: number;
}

/**
 * A fault in force (faults on demand): each matching delivery is sent twice (`duplicate`), loses its
 * answer (`lose-answer`), or is signed by a skewed clock (`skew-clock`); `throttle` refuses the next
 * sending calls. `times` bounds how often it applies; `count` is how often it did.
 */
export interface FaultRecord {
  id: string;
  kind: FaultKind;
  /** A whole URL, or a path starting with `/`; none: every delivery. */
  to?: string;
  times?: number;
  count: number;
  status?: 429 | 503;
  retryAfterSeconds?: number;
  skewMs?: number;
  createdAt: number;
}

export type FaultKind = 'duplicate' | 'lose-answer' | 'throttle' | 'skew-clock';

/** A fault as asked for: from the CLI, the dev API or a test. */
export interface FaultInput {
  kind: FaultKind;
  /** A whole URL, or a path starting with `/`; none: every delivery. */
  to?: string;
  /** How many times it applies; none: until removed. */
  times?: number;
  /** `throttle`: 429 (default) or 503. */
  status?: number;
  /** `throttle`: the `Retry-After` seconds (default 1). */
  retryAfter?: string | number;
  /** `skew-clock`: how far off the signing clock is, `10m` ahead or `-10m` behind. */
  by?: string | number;
}

/** A workflow run: its trigger's body and every step published for it, in order. */
export interface WorkflowRunRecord {
  runId: string;
  url: string;
  /** Unix milliseconds. */
  createdAt: number;
  state: 'RUN_STARTED' | 'RUN_SUCCESS' | 'RUN_FAILED' | 'RUN_CANCELED';
  /** The trigger first, then each step, as published. */
  steps: RunStepRecord[];
  /** The requests of its `context.call`s, by step id: a Call step's log shows what was called. */
  calls?: Record<string, CallRecord>;
  /** The failed run this one resumes or restarts (from the workflow DLQ). */
  origin?: { runId: string; action: 'resume' | 'restart' };
  /** What the trigger set for every message of the run. */
  settings: { maxRetries: number; retryDelay?: string; flowControl?: FlowControlSettings; failureCallback?: CallbackSettings };
  completedAt?: number;
  /** The route's return value, sent when the run ended. */
  responseBase64?: string;
  /**
   * Events that came before the run waited for them (calls of its webhooks, notifications naming the
   * run), by event id, oldest first; dropped when the run ends.
   */
  earlyEvents?: Record<string, string[]>;
  /** The event ids of the webhooks its `createWebhook` steps issued: the only ones its webhook URL answers. */
  webhooks?: string[];
  /** The message that started it: a restart sends it again as a new run. */
  trigger: MessageRecord;
  /** What happened to it after it started, oldest first: kept when it fails, is resumed or restarted. */
  timeline?: RunEventRecord[];
}

/** One thing that happened to a run, as its page tells it. */
export interface RunEventRecord {
  /** Unix milliseconds. */
  at: number;
  kind: RunEventKind;
  /** The step message it concerns (a dead-lettered, resumed or retried step). */
  messageId?: string;
  /** The run it went on as (resumed, restarted). */
  runId?: string;
  /** The answer or error it ended with (`answered 500`), or the state it ended in. */
  detail?: string;
}

export type RunEventKind =
  | 'dead-lettered'
  | 'failure-function'
  | 'failure-function-again'
  | 'resumed'
  | 'restarted'
  | 'retried'
  | 'dlq-deleted'
  | 'ended';

/** One step of a run as published, with what its log shows (absent in runs journaled before they were kept). */
export interface RunStepRecord {
  messageId: string;
  bodyBase64: string;
  /** Unix milliseconds. */
  createdAt?: number;
  retries?: number;
  retryDelay?: string;
  /** As delivered with the step. */
  headers?: HeaderValues;
}

/** A `context.call`'s request to a third party. */
interface CallRecord {
  url: string;
  method: string;
  headers: HeaderValues;
  bodyBase64: string;
}

/** A message's body as bytes. */
export const bodyBytes = (message: MessageRecord): Buffer => Buffer.from(message.body, 'latin1');

/** A message's body in base64, as the interface shows bodies. */
export const bodyBase64 = (message: MessageRecord): string => bodyBytes(message).toString('base64');

/** One accepted message, with everything needed to deliver it and to report on it. Immutable. */
export interface MessageRecord {
  /** `msg_...` */
  id: string;
  /** Acceptance order: a queue delivers in this order. */
  seq: number;
  kind: MessageKind;
  /** Callbacks have none: they must never wait behind the message they report on. */
  queue?: string;
  url: string;
  method: string;
  /**
   * The body's exact bytes as a latin1 string, one character per byte: half the memory of base64
   * and as cheap to turn back into bytes ({@link bodyBytes}).
   */
  body: string;
  contentType?: string;
  /** Sent to the destination as they are (already stripped of `<P>-Forward-`). */
  forwardHeaders: Record<string, string>;
  /** The enqueue request's headers (without `Authorization`): `sourceHeader` and the DLQ `header`. */
  sourceHeader: HeaderValues;
  maxRetries: number;
  retryDelay?: string;
  /** Per attempt, already capped by the plan. */
  timeoutSeconds: number;
  /** Unix milliseconds of the first delivery as the service reckons it (before the time scale). */
  notBefore: number;
  /** Unix milliseconds of the real first attempt (after the time scale). */
  dueAt: number;
  /** Unix milliseconds. */
  createdAt: number;
  callerIp: string;
  topicName?: string;
  endpointName?: string;
  /** As given: comma-separated when several. */
  label?: string;
  /** Flow control the message joins, with the limits it carried. */
  flowControl?: FlowControlSettings;
  /** What the logs, the DLQ and the console must not show. */
  redact?: RedactSettings;
  /** The schedule that fired it. */
  scheduleId?: string;
  workflow?: WorkflowInfo;
  callback?: CallbackSettings;
  failureCallback?: CallbackSettings;
  /** Callbacks: the message they report on. */
  sourceMessageId?: string;
  /** Failure callbacks: the DLQ entry whose `failureCallbackInfo` they decide. */
  dlqId?: string;
  /** Sent again from this message (the console's Replay, or Edit and resend). */
  resentFrom?: string;
}

/** `<P>-Flow-Control-Key` and `-Value`. */
export interface FlowControlSettings {
  key: string;
  parallelism?: number;
  rate?: number;
  /** Seconds per rate period; default 1. */
  periodSeconds?: number;
}

/** `<P>-Redact-Fields`: the body, every header, or the named headers (lower case, as delivered: `x-token`). */
export interface RedactSettings {
  body: boolean;
  headers: true | string[];
}

/** A queue's settings. Times are Unix milliseconds. */
export interface QueueRecord {
  name: string;
  parallelism: number;
  paused: boolean;
  createdAt: number;
  updatedAt: number;
}

/**
 * A schedule: the creation request as it arrived (destination, headers, body), so each firing is
 * read exactly like a new publish of the same request.
 */
export interface ScheduleRecord {
  scheduleId: string;
  cron: string;
  /** The `{destination}` of `POST /v2/schedules/{destination}`: a URL or a URL group name. */
  destination: string;
  /** `[name, value, ...]` as sent, without `Authorization`. */
  rawHeaders: string[];
  bodyBase64: string;
  callerIp: string;
  paused: boolean;
  createdAt: number;
  /** Service-clock Unix milliseconds of the last firing. */
  lastScheduleTime?: number;
  /** Message id -> outcome of the last firing's messages. */
  lastScheduleStates?: Record<string, 'IN_PROGRESS' | 'SUCCESS' | 'FAIL'>;
}

/** A flow-control key's settings beyond what its messages carry. */
export interface FlowKeyRecord {
  key: string;
  paused: boolean;
  /** Limits pinned by `POST /v2/flowControl/{key}/pin`, winning over the messages' own. */
  pinned: { parallelism?: number; rate?: number; periodSeconds?: number };
}

/** One state change of one message, as `GET /v2/events` answers it. */
export interface LogRecord {
  /** Position in the log: the cursor. */
  order: number;
  time: number;
  state: 'CREATED' | 'ACTIVE' | 'RETRY' | 'ERROR' | 'DELIVERED' | 'FAILED' | 'CANCEL_REQUESTED' | 'CANCELED';
  messageId: string;
  nextDeliveryTime?: number;
  error?: string;
  responseStatus?: number;
  /** `RETRY`: what decided the wait. */
  delaySource?: DelaySource;
  /** `ERROR` and `DELIVERED`: the attempt they end, as sent and as answered. */
  attempt?: AttemptDetail;
}

/** One attempt as the logs and the console show it. Response bodies are cut at 4 KiB. */
export interface AttemptDetail {
  retried: number;
  startedAt: number;
  durationMs: number;
  /** The attempt's token; the headers sent are rebuilt from it and the message when shown. */
  signature: string | undefined;
  /** The attempt's own span, when the server exported one: the `traceparent` it carried names it. */
  spanId?: string;
  response?: { status: number; headers: HeaderValues; bodyBase64: string; truncated: boolean };
  error?: string;
}

/** What a destination answered to one attempt. */
export interface ResponseRecord {
  status: number;
  headers: HeaderValues;
  bodyBase64: string;
}

/** How the failure callback of a DLQ entry went (`failureCallbackInfo`). */
interface FailureCallbackInfoRecord {
  state: 'CALLBACK_INPROGRESS' | 'CALLBACK_SUCCESS' | 'CALLBACK_FAIL' | 'CALLBACK_CANCELED';
  responseStatus?: number;
  responseBodyBase64?: string;
  responseHeaders?: HeaderValues;
}

/** A message that failed for good. Workflow messages are listed by the workflow DLQ. */
export interface DlqEntry {
  /** `<unix-ms>-<seq>` */
  dlqId: string;
  /** Insertion order: listings are newest first. */
  order: number;
  /** Unix milliseconds when it entered the DLQ (the `fromDate`/`toDate` filters use it). */
  at: number;
  message: MessageRecord;
  /** `<P>-Retried` of the last attempt, for the failure callback's body when it is re-triggered. */
  retried: number;
  response?: ResponseRecord;
  error?: string;
  /** Absent when the message had no failure callback. */
  failureCallbackInfo?: FailureCallbackInfoRecord;
}

/** A URL group (`topics`). Times are Unix milliseconds. */
export interface UrlGroupRecord {
  name: string;
  createdAt: number;
  updatedAt: number;
  endpoints: Array<{ name?: string; url: string }>;
}

/** A search index as the management interface answers it. */
export type SearchIndexRecord = Record<string, unknown> & { id: string; name: string };

/** One deduplicated enqueue: what a duplicate is answered with. */
export interface DedupResult {
  messageId: string;
  url: string;
}

/** Counters of one minute, for the statistics. */
export interface StatsBucket {
  requests: number;
  workflowRequests: number;
  delivered: number;
  failed: number;
  workflowDelivered: number;
  workflowFailed: number;
  /** Absent in buckets journaled before it was counted. */
  workflowCanceled?: number;
  /** Runs started (triggers); absent in buckets journaled before it was counted. */
  workflowRuns?: number;
  bandwidth: number;
}

/** How one attempt ended. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

/** What decided the wait before a retry: the message's retry-delay expression, the default backoff, or the destination's `Retry-After`. */
export type DelaySource = 'retry-delay' | 'default-backoff' | 'retry-after';

/** Every journal record. */
export type DevRecord =
  /**
   * Records of one action that must be durable together or not at all (a batch of messages, a run
   * restarted and its DLQ entry deleted): one journal line, so a crash keeps all of them or none.
   */
  | { type: 'batch'; records: DevRecord[] }
  /** One enqueue: one message, or one per endpoint of a URL group. */
  | { type: 'messages.accepted'; at: number; messages: MessageRecord[]; dedupKeys?: string[]; schedule?: { id: string; time: number } }
  /**
   * One attempt and everything it caused, in one record so a crash can never keep half of it: the
   * callback messages it spawned and, on a final failure, the DLQ entry.
   */
  | {
      type: 'attempt';
      id: string;
      at: number;
      retried: number;
      outcome: AttemptOutcome;
      response?: ResponseRecord;
      error?: string;
      /** Next attempt (outcome `retry`): real-clock Unix milliseconds. */
      dueAt?: number;
      /** When the attempt started (its `ACTIVE` log entry). */
      startedAt?: number;
      /** The token the attempt was signed with; the other headers follow from the message. */
      signature?: string;
      /** The attempt's own span, when the server exports spans (`otlpEndpoint`): its `traceparent` names it. */
      spanId?: string;
      /** What decided the wait before the next attempt (outcome `retry`). */
      delaySource?: DelaySource;
      bytes: number;
      spawned: MessageRecord[];
      dlq?: DlqEntry;
    }
  | { type: 'group.updated'; name: string; group: UrlGroupRecord | null }
  | { type: 'dlq.retriggered'; dlqId: string; at: number; message: MessageRecord }
  | { type: 'index.created'; index: SearchIndexRecord }
  /** Cancelled pending messages (one, many, or every one of a deleted queue). */
  | { type: 'messages.cancelled'; at: number; ids: string[] }
  /** A fault set, or restored by a snapshot with its count. */
  | { type: 'fault.set'; fault: FaultRecord }
  /** A fault applied once more. */
  | { type: 'fault.applied'; id: string }
  /** A fault removed; `'*'`: every fault. */
  | { type: 'fault.removed'; id: string }
  /** A waiting message (a delay, a sleep, a retry's backoff) made due at `at`: the service's "retry now". */
  | { type: 'message.released'; id: string; at: number }
  /** `at` when a request deleted them (a run's timeline notes it), not when they left for a restart. */
  | { type: 'dlq.deleted'; ids: string[]; at?: number }
  /** Entries sent again: each leaves the DLQ and its message is accepted under a new id. */
  | { type: 'dlq.retried'; at: number; ids: string[]; messages: MessageRecord[] }
  | { type: 'queue.updated'; name: string; queue: QueueRecord | null }
  | { type: 'schedule.updated'; id: string; schedule: ScheduleRecord | null }
  | { type: 'flow.updated'; key: string; flow: FlowKeyRecord }
  | { type: 'keys.rotated'; current: string; next: string }
  /** A run ended: its route returned (`RUN_SUCCESS`, with what it returned) or it was cancelled. */
  | { type: 'run.ended'; runId: string; at: number; state: 'RUN_SUCCESS' | 'RUN_CANCELED'; responseBase64?: string }
  /** A run started waiting for an event (also how a compaction keeps a waiter). */
  | { type: 'waiter.added'; waiter: WaiterRecord }
  /** A wait ended: notified, or timed out. */
  | { type: 'waiter.removed'; id: string }
  // Written only by compaction: the state as it was, instead of the history that led to it.
  | { type: 'message.restored'; message: MessageRecord; retried: number; dueAt: number; started: boolean }
  | { type: 'dlq.restored'; entry: DlqEntry }
  | { type: 'dedup.restored'; key: string; at: number; results: DedupResult[] }
  | { type: 'stats.restored'; buckets: Array<[number, StatsBucket]> }
  | { type: 'run.restored'; run: WorkflowRunRecord }
  /** A webhook call for an event no step of the run waits for yet: the next wait for it takes it. */
  | { type: 'run.event-stored'; runId: string; eventId: string; dataBase64: string }
  | { type: 'run.event-taken'; runId: string; eventId: string }
  | { type: 'logs.restored'; logs: LogRecord[]; messages: MessageRecord[] }
  /** Numbering never goes back, even when everything numbered was dropped. */
  | { type: 'counters.restored'; nextSeq: number; nextDlqOrder: number; nextLogOrder?: number };

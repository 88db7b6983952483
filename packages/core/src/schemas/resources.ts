import { MESSAGE_STATES, WORKFLOW_RUN_STATES } from '../wire';
import { knownString, nilSafeArray, numberOrNumericStringSchema, optionalHeaderMapSchema } from './primitives';
import { z } from 'zod';

// The answers of the messaging interface's resource endpoints: messages, the message DLQ, logs,
// schedules, queues, flow control and signing keys. As everywhere, only what identifies a resource
// is required; the service writes these from Go structs with `omitempty`, and one odd field must not
// make a listing unreadable. Unknown fields are kept.

// The cursor ends a listing when it is absent or empty; both read as `undefined`.
const cursorSchema = z
  .union([z.string(), z.number()])
  .nullish()
  .transform((cursor) => (cursor === undefined || cursor === null || cursor === '' ? undefined : String(cursor)))
  .optional();

const labelsFields = {
  /** The first label (the service's older field, kept for old readers); `labels` holds all of them. */
  label: z.string().optional(),
  /** Every label, in the order given. */
  labels: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? undefined)
    .optional(),
};

const deliveryFields = {
  url: z.string().optional(),
  /** URL group name when the message was sent to one. */
  topicName: z.string().optional(),
  endpointName: z.string().optional(),
  /** `api/...` destinations. */
  api: z.string().optional(),
  method: z.string().optional(),
  header: optionalHeaderMapSchema,
  /** The body, when it is valid UTF-8. */
  body: z.string().optional(),
  /** The body in base64, when it is not. */
  bodyBase64: z.string().optional(),
  maxRetries: z.number().optional(),
  retryDelayExpression: z.string().optional(),
  /** Unix milliseconds. */
  notBefore: numberOrNumericStringSchema.optional(),
  /** Unix milliseconds. */
  createdAt: numberOrNumericStringSchema.optional(),
  callback: z.string().optional(),
  failureCallback: z.string().optional(),
  queueName: z.string().optional(),
  scheduleId: z.string().optional(),
  callerIp: z.string().optional(),
  flowControlKey: z.string().optional(),
  parallelism: z.number().optional(),
  rate: z.number().optional(),
  /** Seconds. */
  period: z.number().optional(),
  ...labelsFields,
};

/** A message not yet delivered (`GET /v2/messages/{id}`). */
export const messageSchema = z.looseObject({ messageId: z.string(), ...deliveryFields });
/** A message not yet delivered. */
export type Message = z.infer<typeof messageSchema>;

/** An entry of the message DLQ: the message as sent, and the last answer it got. */
export const dlqMessageSchema = z.looseObject({
  /** What `dlq.get`, `dlq.delete` and `dlq.retry` take. */
  dlqId: z.string(),
  messageId: z.string(),
  ...deliveryFields,
  /** Absent when the last attempt got no answer (a timeout, a refused connection). */
  responseStatus: z.number().optional(),
  responseHeader: optionalHeaderMapSchema,
  responseBody: z.string().optional(),
  responseBodyBase64: z.string().optional(),
});
/** An entry of the message DLQ. */
export type DlqMessage = z.infer<typeof dlqMessageSchema>;

/** One page of the message DLQ. */
export const dlqMessagePageSchema = z.looseObject({ cursor: cursorSchema, messages: nilSafeArray(dlqMessageSchema) });

/** The answer of a bulk DLQ delete. */
export const dlqDeleteResultSchema = z.looseObject({ deleted: z.number(), cursor: cursorSchema });
/** How many entries a bulk delete removed, and where to continue. */
export type DlqDeleteResult = z.infer<typeof dlqDeleteResultSchema>;

/** The answer of a DLQ retry: the new message of each entry. */
export const dlqRetryResultSchema = z.looseObject({
  cursor: cursorSchema,
  responses: nilSafeArray(z.looseObject({ messageId: z.string() })),
});
/** The new message id of each retried entry. */
export type DlqRetryResult = z.infer<typeof dlqRetryResultSchema>;

/** The answer of a message cancel. */
export const cancelResultSchema = z.looseObject({ cancelled: z.number() });

/** A bulk action started in the background (`DELETE /v2/messages?async=true`). */
export const bulkActionStartedSchema = z.looseObject({ actionId: z.string() });

/** A bulk action's progress (`GET /v2/bulkActions/{actionId}`). */
export const bulkActionSchema = z.looseObject({
  actionId: z.string(),
  kind: z.string(),
  state: z.string(),
  /** Messages that matched when it started. */
  total: z.number(),
  processed: z.number(),
  /** Unix milliseconds. */
  createdAt: z.number(),
  completedAt: z.number().optional(),
  filter: z.record(z.string(), z.array(z.string())).optional(),
});
/** A bulk action: what it does (`cancel`), how far it got, and the filter it was started with. */
export type BulkAction = z.infer<typeof bulkActionSchema>;

/** One state change of one message (`GET /v2/events`). */
const logEventSchema = z.looseObject({
  /** Unix milliseconds. */
  time: z.number(),
  state: knownString(MESSAGE_STATES),
  messageId: z.string(),
  /** Unix milliseconds of the next attempt, on `RETRY`. */
  nextDeliveryTime: z.number().optional(),
  error: z.string().optional(),
  url: z.string().optional(),
  topicName: z.string().optional(),
  endpointName: z.string().optional(),
  queueName: z.string().optional(),
  scheduleId: z.string().optional(),
  header: optionalHeaderMapSchema,
  /** base64. */
  body: z.string().optional(),
  responseStatus: z.number().optional(),
  ...labelsFields,
});
/** One state change of one message. */
export type LogEvent = z.infer<typeof logEventSchema>;

/** One page of the logs. */
export const logPageSchema = z.looseObject({ cursor: cursorSchema, events: nilSafeArray(logEventSchema) });

/** A schedule (`GET /v2/schedules/{id}`). */
export const scheduleSchema = z.looseObject({
  scheduleId: z.string(),
  cron: z.string(),
  /** Unix milliseconds. */
  createdAt: z.number().optional(),
  destination: z.string(),
  method: z.string().optional(),
  header: optionalHeaderMapSchema,
  body: z.string().optional(),
  bodyBase64: z.string().optional(),
  retries: z.number().optional(),
  /** Seconds. */
  delay: z.number().optional(),
  callback: z.string().optional(),
  failureCallback: z.string().optional(),
  callerIp: z.string().optional(),
  isPaused: z.boolean().optional(),
  queueName: z.string().optional(),
  flowControlKey: z.string().optional(),
  parallelism: z.number().optional(),
  rate: z.number().optional(),
  period: z.number().optional(),
  retryDelayExpression: z.string().optional(),
  /** Unix milliseconds of the last firing. */
  lastScheduleTime: z.number().optional(),
  /** Unix milliseconds of the next firing. */
  nextScheduleTime: z.number().optional(),
  /** Message id -> state of the last firing's messages. */
  lastScheduleStates: z
    .record(z.string(), z.string())
    .nullish()
    .transform((value) => value ?? undefined)
    .optional(),
  ...labelsFields,
});
/** A schedule. */
export type Schedule = z.infer<typeof scheduleSchema>;

/** The answer of a schedule's creation. */
export const scheduleCreatedSchema = z.looseObject({ scheduleId: z.string() });

/** A queue (`GET /v2/queues/{name}`). */
export const queueSchema = z.looseObject({
  name: z.string(),
  parallelism: z.number(),
  /** Messages waiting. */
  lag: z.number().optional(),
  paused: z.boolean().optional(),
  /** Unix milliseconds. */
  createdAt: z.number().optional(),
  /** Unix milliseconds. */
  updatedAt: z.number().optional(),
});
/** A queue. */
export type Queue = z.infer<typeof queueSchema>;

/** A flow-control key's limits and its live counters (`GET /v2/flowControl/{key}`). */
export const flowControlInfoSchema = z.looseObject({
  flowControlKey: z.string(),
  /** Messages waiting for a slot of this key. */
  waitListSize: z.number().optional(),
  parallelismMax: z.number().optional(),
  parallelismCount: z.number().optional(),
  rateMax: z.number().optional(),
  rateCount: z.number().optional(),
  /** Seconds. */
  ratePeriod: z.number().optional(),
  /** Unix milliseconds. */
  ratePeriodStart: z.number().optional(),
  isPaused: z.boolean().optional(),
  isPinnedParallelism: z.boolean().optional(),
  isPinnedRate: z.boolean().optional(),
});
/** A flow-control key's limits and counters. */
export type FlowControlInfo = z.infer<typeof flowControlInfoSchema>;

/** The account-wide parallelism (`GET /v2/globalParallelism`). */
export const globalParallelismSchema = z.looseObject({
  parallelismMax: z.number().default(0),
  parallelismCount: z.number().default(0),
});
/** The account-wide parallelism: its limit and the attempts running now. */
export type GlobalParallelism = z.infer<typeof globalParallelismSchema>;

/** The signing keys (`GET /v2/keys`, `POST /v2/keys/rotate`). */
export const signingKeysSchema = z.looseObject({ current: z.string(), next: z.string() });
/** The current and next signing keys. */
export type SigningKeys = z.infer<typeof signingKeysSchema>;

// Workflow runs as the service keeps them for the Workflow SDK: their logs (state and steps), the
// runs waiting for an event, and what a cancel, notify, resume, restart or delete answers.

const stepSchema = z.looseObject({
  messageId: z.string().optional(),
  stepName: z.string().optional(),
  stepType: z.string().optional(),
  state: z.string().optional(),
  out: z.unknown().optional(),
  concurrent: z.number().optional(),
});

/** One run, as `GET /v2/workflows/events` lists it. Unknown fields are kept. */
const workflowRunSchema = z.looseObject({
  workflowRunId: z.string(),
  workflowUrl: z.string(),
  workflowState: knownString(WORKFLOW_RUN_STATES),
  /** Unix milliseconds. */
  workflowRunCreatedAt: z.number(),
  workflowRunCompletedAt: z.number().optional(),
  /** In order: one group per sequential step, one for steps that ran side by side. */
  steps: nilSafeArray(z.looseObject({ type: z.string(), steps: nilSafeArray(stepSchema) })),
  /** What the route returned, as JSON text. */
  workflowRunResponse: z.string().optional(),
  dlqId: z.string().optional(),
  failureFunction: z.looseObject({ state: z.string().optional(), failStatus: z.number().optional() }).optional(),
});
/** A workflow run with its steps. */
export type WorkflowRun = z.infer<typeof workflowRunSchema>;

export const workflowRunPageSchema = z.looseObject({ runs: nilSafeArray(workflowRunSchema), cursor: z.string().optional() });

const waiterSchema = z.looseObject({
  url: z.string(),
  /** Unix seconds. */
  deadline: z.number().optional(),
  timeoutUrl: z.string().optional(),
});
/** A run waiting for an event. */
export type Waiter = z.infer<typeof waiterSchema>;
export const waiterListSchema = nilSafeArray(waiterSchema);

export const notifyResultSchema = nilSafeArray(
  z.looseObject({ waiter: waiterSchema, messageId: z.string(), error: z.string().optional() }),
);
/** Who a notify reached: each waiter and the message that gave it the event. */
export type NotifyResult = z.infer<typeof notifyResultSchema>[number];

const restartedRunSchema = z.looseObject({ workflowRunId: z.string(), workflowCreatedAt: z.number().optional() });
/** A run a workflow DLQ resume or restart started: the same run, or a new one. */
export type RestartedRun = z.infer<typeof restartedRunSchema>;
export const workflowRestartedSchema = z.looseObject({ workflowRuns: nilSafeArray(restartedRunSchema) });
export const workflowDeletedSchema = z.looseObject({ deleted: z.number() });

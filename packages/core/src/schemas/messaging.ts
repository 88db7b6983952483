import { knownString, nilSafeArray, numberOrNumericStringSchema, optionalHeaderMapSchema } from './primitives';
import { z } from 'zod';

// Only `sourceMessageId` is required. These schemas run in the receiving pipeline, where a schema
// failure answers 489 and sends the callback straight to the DLQ: the user's handler would never see
// it. So a field is required only when a body without it cannot be a callback at all. Everything else
// may legitimately be missing: `status` when the attempt got no answer (a timeout), `retried` on the
// first attempt under Go's `omitempty`, the base64 bodies when empty, `topicName`/`endpointName`
// outside URL groups, `scheduleId` outside schedules. Numbers documented as sometimes-strings
// (`notBefore`, `createdAt`) accept both and always parse to numbers.
const callbackFields = {
  /** Status of the last response; absent when the attempt got no answer. */
  status: z.number().optional(),
  /** Headers of the last response. */
  header: optionalHeaderMapSchema,
  /** The last response body, base64. */
  body: z.string().optional(),
  /** Retries made so far; the attempt was the last one when it equals `maxRetries`. */
  retried: z.number().optional(),
  maxRetries: z.number().optional(),
  /** The message the callback is about (`msg_...`). */
  sourceMessageId: z.string(),
  topicName: z.string().optional(),
  endpointName: z.string().optional(),
  /** The destination URL that was called. */
  url: z.string().optional(),
  method: z.string().optional(),
  /** Headers of the original message; a single string value is read as a one-element array. */
  sourceHeader: optionalHeaderMapSchema,
  /** The original message body, base64. */
  sourceBody: z.string().optional(),
  /** Unix milliseconds; a numeric string is accepted. */
  notBefore: numberOrNumericStringSchema.optional(),
  /** Unix milliseconds; a numeric string is accepted. */
  createdAt: numberOrNumericStringSchema.optional(),
  scheduleId: z.string().optional(),
  callerIP: z.string().optional(),
};

/** The JSON body the service posts to a callback URL after every delivery attempt. Unknown fields are kept. */
export const callbackBodySchema = z.looseObject(callbackFields);
/** The body of a callback. */
export type CallbackBody = z.infer<typeof callbackBodySchema>;

// `dlqId` is required: the service sends a failure callback only for a message it put in the DLQ,
// and a handler's first use of it is to retry or delete that entry.
/** The JSON body posted to a failure callback URL once all retries are exhausted. */
export const failureCallbackBodySchema = z.looseObject({
  ...callbackFields,
  /** The DLQ entry of the failed message, for listing or re-triggering. */
  dlqId: z.string(),
  /** Workflow runs only (`wfr_...`). */
  workflowRunId: z.string().optional(),
  /** Workflow runs only; Unix milliseconds, a numeric string is accepted. */
  workflowCreatedAt: numberOrNumericStringSchema.optional(),
});
/** The body of a failure callback. */
export type FailureCallbackBody = z.infer<typeof failureCallbackBodySchema>;

/** States of a workflow run's failure callback (`failureCallbackInfo.state`, `failureCallbackState` filter). */
export const FAILURE_CALLBACK_STATES = ['CALLBACK_INPROGRESS', 'CALLBACK_SUCCESS', 'CALLBACK_FAIL', 'CALLBACK_CANCELED'] as const;
/** A failure callback state as a filter value. */
export type FailureCallbackState = (typeof FAILURE_CALLBACK_STATES)[number];

/** How the failure callback of a failed workflow run went. Every field may be missing. */
const failureCallbackInfoSchema = z.looseObject({
  /** Only `CALLBACK_FAIL` can be re-triggered. Lenient: a new state must not break the listing. */
  state: knownString(FAILURE_CALLBACK_STATES).optional(),
  responseStatus: z.number().optional(),
  responseBody: z.string().optional(),
  responseHeaders: optionalHeaderMapSchema,
});
/** How the failure callback of a failed workflow run went. */
export type FailureCallbackInfo = z.infer<typeof failureCallbackInfoSchema>;

// Only the two ids are required. The service writes these entries from Go structs with
// `omitempty`, so an empty body, a zero `notBefore`, no failure callback or no response at all
// (a timeout) simply leave fields out; and one odd entry must not make a whole page unreadable,
// since the page is how a user finds the entry to re-trigger. `dlqId` is what every action takes;
// `messageId` identifies what failed. Timestamps accept numeric strings (some clients see
// `workflowCreatedAt` as a string, copied from a header) and are always numbers once parsed.
/** A failed workflow run in the DLQ (`GET /v2/workflows/dlq`). Unknown fields are kept. */
export const dlqWorkflowMessageSchema = z.looseObject({
  /** `<unix-ms>-<seq>`; what `retriggerFailureCallback` takes. */
  dlqId: z.string(),
  /** `msg_...` */
  messageId: z.string(),
  url: z.string().optional(),
  method: z.string().optional(),
  header: optionalHeaderMapSchema,
  maxRetries: z.number().optional(),
  /** Unix milliseconds. */
  notBefore: numberOrNumericStringSchema.optional(),
  /** Unix milliseconds. */
  createdAt: numberOrNumericStringSchema.optional(),
  /** The failure callback URL, when one was set. */
  failureCallback: z.string().optional(),
  callerIP: z.string().optional(),
  /** `wfr_...` */
  workflowRunId: z.string().optional(),
  /** Unix milliseconds; a numeric string is accepted. */
  workflowCreatedAt: numberOrNumericStringSchema.optional(),
  workflowUrl: z.string().optional(),
  /** Status of the last delivery attempt; absent when there was no answer (e.g. a timeout). */
  responseStatus: z.number().optional(),
  responseHeader: optionalHeaderMapSchema,
  responseBody: z.string().optional(),
  failureCallbackInfo: failureCallbackInfoSchema.optional(),
  /** The label given at enqueue, when one was. */
  label: z.string().optional(),
  /** The original body, when it is valid UTF-8. */
  body: z.string().optional(),
  /** The original body in base64, when it is not valid UTF-8. */
  bodyBase64: z.string().optional(),
  /** The last response body in base64, when it is not valid UTF-8. */
  responseBodyBase64: z.string().optional(),
  failureCallbackHeader: optionalHeaderMapSchema,
});
/** A failed workflow run in the DLQ. */
export type DlqWorkflowMessage = z.infer<typeof dlqWorkflowMessageSchema>;

// The end of the listing is signalled by no cursor, which the service writes either way: absent or
// `""`. Both become `undefined`, so `while (page.cursor)` and `page.cursor === undefined` agree.
/** One page of the workflow DLQ listing. */
export const dlqListResponseSchema = z.looseObject({
  /** Pass back to get the next page; `undefined` at the end (an empty string is normalised away). */
  cursor: z
    .string()
    .nullish()
    .transform((cursor) => cursor || undefined)
    .optional(),
  /** Newest first. A `null` from an empty Go slice reads as `[]`. */
  messages: nilSafeArray(dlqWorkflowMessageSchema),
});
/** One page of the workflow DLQ listing. */
export type DlqListResponse = z.infer<typeof dlqListResponseSchema>;

/** The answer of `POST /v2/workflows/dlq/callback/{dlqId}`. */
export const retriggerResponseSchema = z.looseObject({
  workflowRunId: z.string(),
  /** Unix milliseconds; a numeric string is accepted. */
  workflowCreatedAt: numberOrNumericStringSchema,
});
/** The answer of a failure-callback re-trigger. */
export type RetriggerResponse = z.infer<typeof retriggerResponseSchema>;

/** The answer of an enqueue to a URL or API destination, and one element of a URL-group answer. */
export const enqueueResultSchema = z.looseObject({
  /** For a duplicate, the id of the message already accepted. */
  messageId: z.string(),
  /** `true` when the message was a duplicate and was not sent again. */
  deduplicated: z.boolean().optional(),
  /** The endpoint this element is for (URL-group answers). */
  url: z.string().optional(),
});
/** The result of one enqueued delivery. */
export type EnqueueResult = z.infer<typeof enqueueResultSchema>;

/** An enqueue to a URL group answers a bare array, one element per endpoint. */
export const urlGroupEnqueueResultSchema = z.array(enqueueResultSchema);
/** The answer of an enqueue to a URL group. */
export type UrlGroupEnqueueResult = z.infer<typeof urlGroupEnqueueResultSchema>;

// An endpoint added without a name is stored without one: `name` may be absent or empty, and the
// `url` is what identifies it. Nothing else is optional: a group always has a name and timestamps.
/** One endpoint of a URL group. */
const urlGroupEndpointSchema = z.looseObject({
  /** Absent or empty when the endpoint was added without a name. */
  name: z.string().optional(),
  url: z.string(),
});
/** One endpoint of a URL group. */
export type UrlGroupEndpoint = z.infer<typeof urlGroupEndpointSchema>;

/** A URL group (`GET /v2/topics` answers an array of these). */
export const urlGroupSchema = z.looseObject({
  /** Unix milliseconds. */
  createdAt: z.number(),
  /** Unix milliseconds. */
  updatedAt: z.number(),
  name: z.string(),
  endpoints: nilSafeArray(urlGroupEndpointSchema),
});
/** A URL group. */
export type UrlGroup = z.infer<typeof urlGroupSchema>;

/** The answer of `GET /v2/topics`. */
export const urlGroupListSchema = nilSafeArray(urlGroupSchema);

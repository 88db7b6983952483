import { z } from 'zod';
import { optionalHeaderMapSchema } from './header-map';
import { numberOrNumericStringSchema } from './numeric';

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

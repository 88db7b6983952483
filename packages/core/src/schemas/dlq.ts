import { z } from 'zod';
import { optionalHeaderMapSchema } from './header-map';
import { knownString } from './known-string';
import { nilSafeArray } from './nil-safe-array';
import { numberOrNumericStringSchema } from './numeric';

/** States of a workflow run's failure callback (`failureCallbackInfo.state`, `failureCallbackState` filter). */
export const FAILURE_CALLBACK_STATES = ['CALLBACK_INPROGRESS', 'CALLBACK_SUCCESS', 'CALLBACK_FAIL', 'CALLBACK_CANCELED'] as const;
/** A failure callback state as a filter value. */
export type FailureCallbackState = (typeof FAILURE_CALLBACK_STATES)[number];

/** How the failure callback of a failed workflow run went. Every field may be missing. */
export const failureCallbackInfoSchema = z.looseObject({
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

import { z } from 'zod';
import { messagingStatsSchema, messagingUsersSchema, searchIndexSchema } from './management';
import {
  callbackBodySchema,
  dlqListResponseSchema,
  enqueueResultSchema,
  failureCallbackBodySchema,
  retriggerResponseSchema,
  urlGroupEnqueueResultSchema,
  urlGroupListSchema,
  urlGroupSchema,
} from './messaging';
import { nilSafeArray, parseResponse } from './primitives';
import {
  bulkActionSchema,
  bulkActionStartedSchema,
  cancelResultSchema,
  dlqDeleteResultSchema,
  dlqMessagePageSchema,
  dlqMessageSchema,
  dlqRetryResultSchema,
  flowControlInfoSchema,
  globalParallelismSchema,
  logPageSchema,
  messageSchema,
  notifyResultSchema,
  queueSchema,
  scheduleCreatedSchema,
  scheduleSchema,
  signingKeysSchema,
  waiterListSchema,
  workflowDeletedSchema,
  workflowRestartedSchema,
  workflowRunPageSchema,
} from './resources';

/**
 * Every answer the clients check, by name. The clients name a schema and ./lazy.ts loads this module
 * with the first answer to check, so an app that only receives and enqueues messages never loads zod
 * (most of core's import time). The receiver takes the callback bodies' schemas below, as they are.
 */
const RESPONSES = {
  bulkAction: bulkActionSchema,
  bulkActionStarted: bulkActionStartedSchema,
  cancelResult: cancelResultSchema,
  batchResult: z.array(z.union([enqueueResultSchema, urlGroupEnqueueResultSchema])),
  dlqDeleteResult: dlqDeleteResultSchema,
  dlqMessage: dlqMessageSchema,
  dlqMessagePage: dlqMessagePageSchema,
  dlqRetryResult: dlqRetryResultSchema,
  enqueueResult: enqueueResultSchema,
  flowControlInfo: flowControlInfoSchema,
  flowControlInfoList: nilSafeArray(flowControlInfoSchema),
  globalParallelism: globalParallelismSchema,
  logPage: logPageSchema,
  message: messageSchema,
  messagingStats: messagingStatsSchema,
  messagingUsers: messagingUsersSchema,
  notifyResult: notifyResultSchema,
  queue: queueSchema,
  queueList: nilSafeArray(queueSchema),
  retriggerResponse: retriggerResponseSchema,
  schedule: scheduleSchema,
  scheduleCreated: scheduleCreatedSchema,
  scheduleList: nilSafeArray(scheduleSchema),
  searchIndex: searchIndexSchema,
  signingKeys: signingKeysSchema,
  urlGroup: urlGroupSchema,
  urlGroupEnqueueResult: urlGroupEnqueueResultSchema,
  urlGroupList: urlGroupListSchema,
  waiterList: waiterListSchema,
  workflowDeleted: workflowDeletedSchema,
  workflowDlqPage: dlqListResponseSchema,
  workflowRestarted: workflowRestartedSchema,
  workflowRunPage: workflowRunPageSchema,
};

/** The schemas by name. */
export type Responses = typeof RESPONSES;
/** The name of an answer's schema. */
export type ResponseName = keyof Responses;
/** What the schema `name` gives: the checked answer, with its transforms applied. */
export type ResponseOf<Name extends ResponseName> = z.output<Responses[Name]>;

/** Checks `value`, the answer of `url`, against the schema `name` (see `parseResponse`). */
export function parseNamedResponse<Name extends ResponseName>(name: Name, value: unknown, url: string): ResponseOf<Name> {
  return parseResponse(RESPONSES[name] as unknown as z.ZodType<ResponseOf<Name>>, value, url);
}

/** The schemas of a callback's body and a failure callback's body, for the receiver to check them with. */
export const callbackBodySchemas = { callback: callbackBodySchema, failure: failureCallbackBodySchema };

export {
  formatServiceTimestamp,
  parseServiceTimestamp,
  parseServiceTimestampParts,
  safeParseServiceTimestamp,
} from '../service-timestamp';
export { describeFirstIssue, parseResponse } from './primitives';
export type { HeaderMap, KnownString } from './primitives';
export {
  MESSAGING_USER_STATES,
  messagingUserSchema,
  messagingUsersSchema,
  type MessagingReservedType,
  type MessagingUser,
} from './management';
export { STATS_PERIODS, type StatsPeriod } from '../management-vocabulary';
export {
  messagingStatsSchema,
  pointSchema,
  requestPointSchema,
  seriesSchema,
  type MessagingStats,
  type Point,
  type RequestPoint,
  type Series,
} from './management';
export {
  SEARCH_INDEX_REGIONS,
  SEARCH_INDEX_TYPES,
  SEARCH_INDEX_UNLIMITED,
  type CreateSearchIndexInput,
  type SearchIndexRegion,
  type SearchIndexType,
} from '../management-vocabulary';
export { searchIndexSchema, type SearchIndex } from './management';
export { urlGroupListSchema, urlGroupSchema, type UrlGroup, type UrlGroupEndpoint } from './messaging';
export { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult, type UrlGroupEnqueueResult } from './messaging';
export {
  FAILURE_CALLBACK_STATES,
  dlqListResponseSchema,
  dlqWorkflowMessageSchema,
  retriggerResponseSchema,
  type DlqListResponse,
  type DlqWorkflowMessage,
  type FailureCallbackInfo,
  type FailureCallbackState,
  type RetriggerResponse,
} from './messaging';
export { callbackBodySchema, failureCallbackBodySchema, type CallbackBody, type FailureCallbackBody } from './messaging';
export { errorBodySchema, type ErrorBody } from './primitives';

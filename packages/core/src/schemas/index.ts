export {
  formatServiceTimestamp,
  parseServiceTimestamp,
  parseServiceTimestampParts,
  safeParseServiceTimestamp,
  SERVICE_TIMESTAMP_LAYOUT,
  type ServiceTimestampParts,
  type ServiceTimestampResult,
} from './management';
export { describeFirstIssue, parseResponse, type SchemaIssueSummary } from './primitives';
export type { KnownString } from './primitives';
export { headerMapSchema, type HeaderMap } from './primitives';
export {
  MESSAGING_RESERVED_TYPES,
  MESSAGING_USER_REGIONS,
  MESSAGING_USER_STATES,
  MESSAGING_USER_TYPES,
  messagingUserSchema,
  messagingUsersSchema,
  type MessagingReservedType,
  type MessagingUser,
} from './management';
export {
  KNOWN_STATS_METRICS,
  STATS_PERIODS,
  messagingStatsSchema,
  pointSchema,
  requestPointSchema,
  seriesSchema,
  type MessagingStats,
  type Point,
  type RequestPoint,
  type Series,
  type StatsPeriod,
} from './management';
export {
  SEARCH_INDEX_REGIONS,
  SEARCH_INDEX_TYPES,
  SEARCH_INDEX_UNLIMITED,
  createSearchIndexInputSchema,
  searchIndexSchema,
  type CreateSearchIndexInput,
  type SearchIndex,
  type SearchIndexRegion,
  type SearchIndexType,
} from './management';
export { urlGroupEndpointSchema, urlGroupListSchema, urlGroupSchema, type UrlGroup, type UrlGroupEndpoint } from './messaging';
export { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult, type UrlGroupEnqueueResult } from './messaging';
export {
  FAILURE_CALLBACK_STATES,
  dlqListResponseSchema,
  dlqWorkflowMessageSchema,
  failureCallbackInfoSchema,
  retriggerResponseSchema,
  type DlqListResponse,
  type DlqWorkflowMessage,
  type FailureCallbackInfo,
  type FailureCallbackState,
  type RetriggerResponse,
} from './messaging';
export { callbackBodySchema, failureCallbackBodySchema, type CallbackBody, type FailureCallbackBody } from './messaging';
export { errorBodySchema, type ErrorBody } from './primitives';

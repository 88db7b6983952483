export {
  formatServiceTimestamp,
  parseServiceTimestamp,
  parseServiceTimestampParts,
  safeParseServiceTimestamp,
  SERVICE_TIMESTAMP_LAYOUT,
  type ServiceTimestampParts,
  type ServiceTimestampResult,
} from './parse-service-timestamp';
export { describeFirstIssue, parseResponse, type SchemaIssueSummary } from './parse-response';
export type { KnownString } from './known-string';
export { headerMapSchema, type HeaderMap } from './header-map';
export {
  MESSAGING_RESERVED_TYPES,
  MESSAGING_USER_REGIONS,
  MESSAGING_USER_STATES,
  MESSAGING_USER_TYPES,
  messagingUserSchema,
  messagingUsersSchema,
  type MessagingReservedType,
  type MessagingUser,
} from './messaging-user';
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
} from './statistics';
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
} from './search-index';
export { urlGroupEndpointSchema, urlGroupListSchema, urlGroupSchema, type UrlGroup, type UrlGroupEndpoint } from './url-group';
export { enqueueResultSchema, urlGroupEnqueueResultSchema, type EnqueueResult, type UrlGroupEnqueueResult } from './enqueue-result';
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
} from './dlq';
export { callbackBodySchema, failureCallbackBodySchema, type CallbackBody, type FailureCallbackBody } from './callback-body';
export { errorBodySchema, type ErrorBody } from './error-body';

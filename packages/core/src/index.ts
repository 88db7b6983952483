// @mailroom/core: what an application uses. Send with the two clients, share one typed definition
// with the receiver, receive through `createReceiver` (or an adapter package), catch our errors.
// Adapter authors: `@mailroom/core/adapter`. Tests: `@mailroom/core/testing`.

export { createMessagingClient } from './messaging/client';
export { createManagementClient } from './management';
export { defineDestination } from './contract';
export { createReceiver } from './receive/create-receiver';
export { createVerifier } from './signature/verifier';
// For apps with a global `express.json()` (and Nest apps without `rawBody: true`): keep the exact bytes.
export { captureRawBody } from './node/read';

export {
  ApiError,
  AuthError,
  BodyReadError,
  BodyTooLargeError,
  ConfigError,
  IdempotencyStoreError,
  InvalidBodyError,
  MailroomError,
  MethodNotAllowedError,
  NetworkError,
  NonRetryableError,
  NotFoundError,
  PlanLimitError,
  RateLimitError,
  RawBodyUnavailableError,
  ResponseValidationError,
  RetryAfterError,
  RetryDelaySyntaxError,
  SignatureError,
  ValidationError,
  type RateLimitKind,
  type SignatureFailure,
} from './errors';
export { SchemaValidationError } from './contract';

// The types of options, results, resources and messages, for annotating app code.
export type { ConfigOption, Environment } from './config';
export type { DevOption } from './dev-mode';
export type {
  CallbackTarget,
  DeliverySettings,
  Duration,
  DurationUnit,
  EnqueueOptions,
  FlowControl,
  HeaderPrefixOptions,
  HeaderRecord,
  HttpMethod,
  RedactFields,
  WorkflowTarget,
} from './enqueue-headers';
export type { HeaderLookup } from './receive/delivery-headers';
export type { RetryDelayExpression } from './retry-delay';
export type * from './messaging';
export type { RetryOptions } from './http';
export type {
  BulkAction,
  DlqDeleteResult,
  DlqMessage,
  DlqRetryResult,
  FlowControlInfo,
  GlobalParallelism,
  LogEvent,
  Message,
  Queue,
  Schedule,
  SigningKeys,
} from './schemas/resources';
export type { MessageState } from './wire';
export type { ManagementClient, ManagementClientOptions } from './management';
export type {
  CallbackBody,
  CreateSearchIndexInput,
  DlqListResponse,
  DlqWorkflowMessage,
  ErrorBody,
  FailureCallbackBody,
  FailureCallbackInfo,
  FailureCallbackState,
  HeaderMap,
  KnownString,
  MessagingReservedType,
  MessagingStats,
  MessagingUser,
  Point,
  RequestPoint,
  RetriggerResponse,
  SearchIndex,
  SearchIndexRegion,
  SearchIndexType,
  Series,
  StatsPeriod,
  UrlGroup,
  UrlGroupEndpoint,
  UrlGroupEnqueueResult,
} from './schemas';
export type { BodyOf, DestinationDefinition, PayloadOf } from './contract';
export type {
  NodeVerifier,
  SignatureClaims,
  SigningKeySlot,
  VerifiedSignature,
  Verifier,
  VerifierImplementation,
  VerifierOptions,
  VerifyInput,
} from './signature';
export type {
  CallbackHandlerOptions,
  CallbackMessage,
  CallbackOptions,
  DecodedBody,
  EndpointOptions,
  FailureCallbackMessage,
  InboundRequest,
  MessageHandler,
  OutboundResponse,
  ReceiveStage,
  ReceivedMessage,
  Receiver,
  ReceiverOptions,
  ResponseSchema,
  Schema,
  SchemaOutput,
  SourceSchema,
} from './receive';
export type { IdempotencyOption, IdempotencySettings, IdempotencyStore } from './idempotency/guard';
export type { MessageTracing } from './tracing/hooks';

// @mailroom/core: the framework-neutral heart of Mailroom. Adapters (Express, Next.js, NestJS) and the
// dev server import from here; nothing here imports an adapter.

// Errors: one hierarchy under MailroomError.
export * from './errors';

// Settings from arguments, then MAILROOM_* variables.
export { ENV_VARIABLES, DEFAULT_HEADER_PREFIX, resolveHeaderPrefix, type ConfigOption, type Environment } from './config';

// Sending: enqueue headers, durations, retry-delay expressions.
export {
  buildEnqueueHeaders,
  checkHttpUrl,
  forwardedHeaders,
  getHeader,
  parseDuration,
  formatDuration,
  type CallbackTarget,
  type WorkflowTarget,
  type DeliverySettings,
  type Duration,
  type DurationUnit,
  type EnqueueOptions,
  type HeaderLookup,
  type HeaderPrefixOptions,
  type HeaderRecord,
  type HttpMethod,
} from './headers';
export {
  parseRetryDelay,
  evaluateRetryDelay,
  defaultBackoffMs,
  retrySchedule,
  retryTimeline,
  type RetryDelayExpression,
  type RetryDelayNode,
  type RetryScheduleOptions,
} from './retry-delay';

// Clients of the two interfaces.
export * from './messaging';
export * from './management';
export type { RetryOptions } from './http';
export { parseRetryAfter } from './http';

// Resource schemas and their inferred types.
export * from './schemas';

// One definition for sender and receiver.
export * from './contract';

// Both ./messaging and ./schemas name an `EnqueueResponse`; the client's typed one is the public meaning.
export type { EnqueueResponse } from './messaging';

// Receiving: signature verification and the framework-neutral pipeline every adapter calls.
export * from './signature';
export * from './receive';

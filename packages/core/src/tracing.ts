/**
 * `@mailroom/core/tracing`: OpenTelemetry for the messaging client and the receivers, through
 * `@opentelemetry/api` (an optional peer dependency, loaded only by this entry point). See docs/tracing.md.
 */
export { openTelemetry, type OpenTelemetryOptions } from './tracing/open-telemetry';
export type { MessageTracing } from './tracing/hooks';

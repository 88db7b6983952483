export { buildEnqueueHeaders, checkHttpUrl } from './build-enqueue-headers';
export { forwardedHeaders } from './forwarded-headers';
export { getHeader, headerEntries, type HeaderLookup } from './header-lookup';
export { parseDuration, formatDuration, type Duration, type DurationUnit } from './duration';
export { assertHeaderName, assertHeaderValue } from './header-syntax';
export type {
  WorkflowTarget,
  CallbackTarget,
  DeliverySettings,
  EnqueueOptions,
  HeaderPrefixOptions,
  HeaderRecord,
  HttpMethod,
} from './enqueue-options';

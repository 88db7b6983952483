export {
  DEFAULT_BACKOFF_EXPRESSION,
  defaultBackoffMs,
  evaluateRetryDelay,
  parseEnqueuedRetryDelay,
  parseRetryDelay,
  retrySchedule,
  retryTimeline,
  type RetryDelayExpression,
} from './evaluate';
export { MAX_RETRY_DELAY_EXPRESSION_LENGTH, MAX_RETRY_DELAY_NESTING, MAX_SCHEDULED_RETRIES } from './tokenize';

export { parseRetryDelay, type RetryDelayExpression } from './parse-retry-delay';
export { evaluateRetryDelay } from './evaluate-retry-delay';
export { defaultBackoffMs } from './default-backoff';
export { retrySchedule, type RetryScheduleOptions } from './retry-schedule';
export { retryTimeline } from './retry-timeline';
export type { RetryDelayNode, RetryDelayBinaryOperator } from './ast';
export type { RetryDelayFunctionName } from './functions';
export { MAX_RETRY_DELAY_EXPRESSION_LENGTH, MAX_RETRY_DELAY_NESTING, MAX_SCHEDULED_RETRIES } from './limits';

export { parseRetryDelay, type RetryDelayExpression } from './evaluate';
export { evaluateRetryDelay, parseEnqueuedRetryDelay } from './evaluate';
export { defaultBackoffMs } from './evaluate';
export { retrySchedule, type RetryScheduleOptions } from './evaluate';
export { retryTimeline } from './evaluate';
export type { RetryDelayNode, RetryDelayBinaryOperator } from './parse';
export type { RetryDelayFunctionName } from './parse';
export { MAX_RETRY_DELAY_EXPRESSION_LENGTH, MAX_RETRY_DELAY_NESTING, MAX_SCHEDULED_RETRIES } from './tokenize';

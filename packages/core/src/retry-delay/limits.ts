/**
 * Longest expression accepted. The service reads it from a header, so a real one is a few dozen
 * characters; the bound keeps tokenising and parsing hostile input linear and cheap.
 */
export const MAX_RETRY_DELAY_EXPRESSION_LENGTH = 1000;

/**
 * Deepest nesting of parentheses, calls and unary minus. The parser is recursive, so without this a
 * string of 10,000 `(` would overflow the stack with a `RangeError` instead of a clear error.
 */
export const MAX_RETRY_DELAY_NESTING = 64;

/**
 * Most retries `retrySchedule` will preview. Plans allow a handful of retries (free 3, paid 5), so
 * this is far above any real value while keeping the returned array small.
 */
export const MAX_SCHEDULED_RETRIES = 1000;

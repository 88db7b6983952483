/** A function callable from a retry-delay expression. */
export interface RetryDelayFunction {
  readonly minArgs: number;
  readonly maxArgs: number;
  readonly apply: (...args: number[]) => number;
}

/**
 * The functions the service documents, and no others, so an expression accepted here is not refused
 * at enqueue for using something the service does not know.
 *
 * `min` and `max` take two or more arguments: with one argument they would silently do nothing, and
 * `min(pow(2, retried) * 1000)` is far more likely a forgotten cap than an intent.
 */
export const RETRY_DELAY_FUNCTIONS = {
  pow: { minArgs: 2, maxArgs: 2, apply: Math.pow },
  sqrt: { minArgs: 1, maxArgs: 1, apply: Math.sqrt },
  abs: { minArgs: 1, maxArgs: 1, apply: Math.abs },
  exp: { minArgs: 1, maxArgs: 1, apply: Math.exp },
  floor: { minArgs: 1, maxArgs: 1, apply: Math.floor },
  ceil: { minArgs: 1, maxArgs: 1, apply: Math.ceil },
  // Math.round sends -2.5 to -2 where some languages give -3; only negative halves differ, and a
  // negative delay is clamped to 0, so this cannot change a delay unless later arithmetic flips it.
  round: { minArgs: 1, maxArgs: 1, apply: Math.round },
  min: { minArgs: 2, maxArgs: Number.POSITIVE_INFINITY, apply: Math.min },
  max: { minArgs: 2, maxArgs: Number.POSITIVE_INFINITY, apply: Math.max },
} as const satisfies Record<string, RetryDelayFunction>;

/** Name of a function callable from a retry-delay expression. */
export type RetryDelayFunctionName = keyof typeof RETRY_DELAY_FUNCTIONS;

/** The function names, in the order the spec lists them, for error messages. */
export const RETRY_DELAY_FUNCTION_NAMES = Object.keys(RETRY_DELAY_FUNCTIONS) as readonly RetryDelayFunctionName[];

/** Own-property check, so `constructor` or `__proto__` are never taken for functions. */
export function isRetryDelayFunctionName(name: string): name is RetryDelayFunctionName {
  return Object.hasOwn(RETRY_DELAY_FUNCTIONS, name);
}

import { expectObject, describeValue, RetryDelaySyntaxError, ValidationError } from '../errors';
import { RETRY_DELAY_FUNCTIONS, parse, type RetryDelayFunction, type RetryDelayNode } from './parse';
import { MAX_SCHEDULED_RETRIES } from './tokenize';

type Evaluator = (retried: number) => number;

/**
 * Turns a syntax tree into a plain closure once, so evaluating it for every retry walks no tree and
 * looks nothing up. The closure trusts `retried`: callers validate it.
 *
 * The result is a delay in milliseconds, never NaN, infinite or negative:
 * - NaN (`sqrt(-1)`, `exp(1000) - exp(1000)`) and division by zero throw at the operator or call
 *   that produced them, since no delay can be derived from them and the position shows the cause.
 * - Infinity is allowed inside (`min(86400000, exp(retried))` is a fine cap) but throws as a result.
 * - A negative result is clamped to 0, i.e. "retry at once". An expression such as
 *   `5000 - retried * 1000` is valid when accepted and only dips below zero at some later retry, and
 *   a delay that lies in the past is what every scheduler treats as "now"; failing a retry long after
 *   the enqueue succeeded would be the worse surprise.
 *
 * @example
 * compile(parse('pow(2, retried) * 1000'), 'pow(2, retried) * 1000')(3); // 8000
 */
function compile(node: RetryDelayNode, source: string): Evaluator {
  const evaluate = compileNode(node, source);
  return (retried) => {
    const value = evaluate(retried);
    if (!Number.isFinite(value)) {
      throw new RetryDelaySyntaxError(source, 0, `evaluates to ${value} for retried=${retried}; cap it, e.g. min(86400000, ...)`);
    }
    // `+ 0` turns -0 into 0, so the delay prints as 0 rather than -0.
    return value < 0 ? 0 : value + 0;
  };
}

function compileNode(node: RetryDelayNode, source: string): Evaluator {
  switch (node.kind) {
    case 'number': {
      const { value } = node;
      return () => value;
    }
    case 'retried':
      return (retried) => retried;
    case 'negate': {
      const operand = compileNode(node.operand, source);
      return (retried) => -operand(retried);
    }
    case 'binary':
      return compileBinary(node, source);
    case 'call':
      return compileCall(node, source);
  }
}

function compileBinary(node: RetryDelayNode & { kind: 'binary' }, source: string): Evaluator {
  const left = compileNode(node.left, source);
  const right = compileNode(node.right, source);
  const { operator, position } = node;
  const apply = BINARY[operator];
  return (retried) => {
    const a = left(retried);
    const b = right(retried);
    if (operator === '/' && b === 0) {
      throw new RetryDelaySyntaxError(source, position, `division by zero: the right side of '/' is 0 for retried=${retried}`);
    }
    const value = apply(a, b);
    if (Number.isNaN(value)) {
      const reason = `'${operator}' has no numeric result for ${a} ${operator} ${b} (retried=${retried})`;
      throw new RetryDelaySyntaxError(source, position, reason);
    }
    return value;
  };
}

const BINARY: Readonly<Record<'+' | '-' | '*' | '/', (a: number, b: number) => number>> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
};

function compileCall(node: RetryDelayNode & { kind: 'call' }, source: string): Evaluator {
  const apply: RetryDelayFunction['apply'] = RETRY_DELAY_FUNCTIONS[node.name].apply;
  const args = node.args.map((arg) => compileNode(arg, source));
  const { name, position } = node;
  return (retried) => {
    const values = args.map((arg) => arg(retried));
    const value = apply(...values);
    if (Number.isNaN(value)) {
      throw new RetryDelaySyntaxError(source, position, `${name}(${values.join(', ')}) has no numeric result (retried=${retried})`);
    }
    return value;
  };
}

/**
 * Throws unless `retried` is a retry count: a non-negative integer, 0 for the first retry. Checked
 * at every public entry because a fractional or negative count would yield a delay the service
 * can never produce, and a string would be silently coerced by the arithmetic.
 *
 * @example
 * assertRetried(2); // ok
 * assertRetried(-1); // throws ValidationError
 */
function assertRetried(retried: unknown, path = 'retried'): asserts retried is number {
  if (typeof retried !== 'number' || !Number.isInteger(retried) || retried < 0) {
    throw new ValidationError(path, `must be a non-negative integer (0 for the first retry) but got ${describeValue(retried)}`);
  }
}

/**
 * The default backoff written in the retry-delay language, as the service lists it on a workflow
 * step (`retryDelay`): it evaluates to {@link defaultBackoffMs} for every `retried`.
 */
export const DEFAULT_BACKOFF_EXPRESSION = 'min(86400000, exp(2 * retried) * 1000)';

/** The default backoff never waits longer than one day (the spec's cap of 86400 seconds). */
const CAP_SECONDS = 86_400;

/**
 * The delay in milliseconds the service uses before retry `retried + 1` when no retry-delay
 * expression is set: the spec's `min(86400, e^(2n))` seconds with n = retries so far. (Some of the
 * service's own pages show `e^(2.5n)`; the spec is the contract we follow.)
 *
 * @example
 * defaultBackoffMs(0); // 1000
 * defaultBackoffMs(1); // ~7389
 * defaultBackoffMs(10); // 86_400_000, the one-day cap
 */
export function defaultBackoffMs(retried: number): number {
  assertRetried(retried);
  return Math.min(CAP_SECONDS, Math.exp(2 * retried)) * 1000;
}

/** A retry-delay expression parsed once, cheap to evaluate for every retry. */
export interface RetryDelayExpression {
  /** The expression exactly as given, e.g. to send as the `Retry-Delay` header. */
  readonly source: string;
  /** The syntax tree, for tools that want to inspect or print the expression. */
  readonly ast: RetryDelayNode;
  /** The delay in milliseconds before retry `retried + 1` (`retried` is 0 for the first retry). */
  evaluate(retried: number): number;
}

/**
 * Parses and checks a retry-delay expression, so a mistake is found before the enqueue (where the
 * service would answer 400) and the result can be evaluated many times.
 *
 * @throws RetryDelaySyntaxError with the position of the fault, or when the first retry has no
 * delay (a failure, an infinite or a negative result); ValidationError when not a string.
 * @example
 * const delay = parseRetryDelay('max(1000, pow(2, retried) * 100)');
 * delay.evaluate(0); // 1000
 * delay.evaluate(5); // 3200
 */
export function parseRetryDelay(expression: string): RetryDelayExpression {
  // Not a RetryDelaySyntaxError: there is no source text for a position to point into.
  if (typeof expression !== 'string') {
    throw new ValidationError('retryDelay', `must be an expression string such as "1000" but got ${describeValue(expression)}`);
  }
  const ast = parse(expression);
  const run = compile(ast, expression);
  return Object.freeze({
    source: expression,
    ast,
    evaluate(retried: number): number {
      assertRetried(retried);
      return run(retried);
    },
  });
}

/**
 * Parses an expression a message is about to carry, refusing one that gives no delay for the first
 * retry (`1/0`, `pow(10, 400)`, `-1000`): such a message could never be retried as written, so the
 * client refuses it before sending and the dev server answers 400. Later retries may still dip
 * below zero (clamped to 0) or fail (the default backoff then applies).
 *
 * @throws RetryDelaySyntaxError for a syntax fault or a first retry without a delay.
 */
export function parseEnqueuedRetryDelay(source: string): RetryDelayExpression {
  const expression = parseRetryDelay(source);
  const first = compileNode(expression.ast, source)(0);
  if (!Number.isFinite(first) || first < 0) {
    throw new RetryDelaySyntaxError(
      source,
      0,
      `evaluates to ${first} for the first retry (retried=0); a delay is a finite number of milliseconds >= 0, e.g. min(86400000, ...)`,
    );
  }
  return expression;
}

/**
 * The delay in milliseconds before retry `retried + 1`. Pass a parsed expression when evaluating
 * the same one repeatedly; a string is parsed on every call.
 *
 * @throws RetryDelaySyntaxError for an invalid expression or a NaN, infinite or division-by-zero
 * result; ValidationError when `retried` is not a non-negative integer.
 * @example
 * evaluateRetryDelay('1000 * (1 + retried)', 2); // 3000
 */
export function evaluateRetryDelay(expression: string | RetryDelayExpression, retried: number): number {
  return toRetryDelayExpression(expression).evaluate(retried);
}

/**
 * Accepts either form of an expression, so every function taking one behaves the same.
 *
 * @example
 * toRetryDelayExpression('1000').evaluate(0); // 1000
 */
function toRetryDelayExpression(expression: string | RetryDelayExpression, path = 'retryDelay'): RetryDelayExpression {
  if (typeof expression === 'string') return parseRetryDelay(expression);
  if (typeof expression === 'object' && expression !== null && typeof expression.evaluate === 'function') return expression;
  throw new ValidationError(path, `must be an expression string or the result of parseRetryDelay() but got ${describeValue(expression)}`);
}

/** What decides the delays: the retry count and, optionally, the `Retry-Delay` expression. */
export interface RetryScheduleOptions {
  /** Number of retries, as in the `Retries` header: 0 to 1000 here (plans allow far fewer). */
  readonly retries: number;
  /** The `Retry-Delay` expression; when absent the spec's default backoff applies. */
  readonly retryDelay?: string | RetryDelayExpression | undefined;
}

/**
 * The delays in milliseconds a message would wait before each retry: element `i` is the delay
 * before retry `i + 1`, computed with `retried = i`. Ignores `Retry-After` from the destination and
 * the time each attempt takes, so it is a preview, not a promise.
 *
 * @throws ValidationError for a bad `retries`; RetryDelaySyntaxError for a bad expression or one
 * that gives no delay for some retry.
 * @example
 * retrySchedule({ retries: 3, retryDelay: 'pow(2, retried) * 1000' }); // [1000, 2000, 4000]
 * retrySchedule({ retries: 2 }); // [1000, ~7389] (default backoff)
 */
export function retrySchedule(options: RetryScheduleOptions): number[] {
  const { retries, retryDelay } = readOptions(options);
  const delayFor = retryDelay === undefined ? defaultBackoffMs : compiledDelay(retryDelay);
  return Array.from({ length: retries }, (_, retried) => delayFor(retried));
}

function compiledDelay(retryDelay: string | RetryDelayExpression): (retried: number) => number {
  const expression = toRetryDelayExpression(retryDelay);
  return (retried) => expression.evaluate(retried);
}

function readOptions(options: RetryScheduleOptions): RetryScheduleOptions {
  expectObject(options, '', 'retrySchedule options such as { retries: 3 }');
  const { retries } = options;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > MAX_SCHEDULED_RETRIES) {
    throw new ValidationError('retries', `must be an integer from 0 to ${MAX_SCHEDULED_RETRIES} but got ${describeValue(retries)}`);
  }
  return options;
}

/**
 * When each retry would start, in milliseconds after the first attempt failed: the running sum of
 * `retrySchedule`. Like it, this assumes attempts take no time and no `Retry-After` is sent, which
 * is what makes "the last retry is about a day later" easy to read off.
 *
 * @example
 * retryTimeline({ retries: 3, retryDelay: '1000 * (1 + retried)' }); // [1000, 3000, 6000]
 */
export function retryTimeline(options: RetryScheduleOptions): number[] {
  let elapsed = 0;
  return retrySchedule(options).map((delay) => (elapsed += delay));
}

import { RetryDelaySyntaxError } from '../errors/retry-delay-syntax-error';
import type { RetryDelayNode } from './ast';
import { RETRY_DELAY_FUNCTIONS } from './functions';
import type { RetryDelayFunction } from './functions';

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
export function compile(node: RetryDelayNode, source: string): Evaluator {
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

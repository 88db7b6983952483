import { RetryDelaySyntaxError } from '../errors';
import {
  MAX_RETRY_DELAY_EXPRESSION_LENGTH,
  MAX_RETRY_DELAY_NESTING,
  suggestName,
  tokenize,
  type RetryDelayPunctuation,
  type RetryDelayToken,
} from './tokenize';

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
type RetryDelayFunctionName = keyof typeof RETRY_DELAY_FUNCTIONS;

/** The function names, in the order the spec lists them, for error messages. */
const RETRY_DELAY_FUNCTION_NAMES = Object.keys(RETRY_DELAY_FUNCTIONS) as readonly RetryDelayFunctionName[];

/** Own-property check, so `constructor` or `__proto__` are never taken for functions. */
function isRetryDelayFunctionName(name: string): name is RetryDelayFunctionName {
  return Object.hasOwn(RETRY_DELAY_FUNCTIONS, name);
}

/** The four binary operators of the language, all left-associative. */
type RetryDelayBinaryOperator = '+' | '-' | '*' | '/';

/**
 * A node of a parsed retry-delay expression. `position` is the 0-based offset in the source of the
 * token that introduced the node (the operator for `binary`, the name for `call`), so evaluation
 * errors can point at the exact spot.
 */
export type RetryDelayNode =
  | { readonly kind: 'number'; readonly value: number; readonly position: number }
  | { readonly kind: 'retried'; readonly position: number }
  | { readonly kind: 'negate'; readonly operand: RetryDelayNode; readonly position: number }
  | {
      readonly kind: 'binary';
      readonly operator: RetryDelayBinaryOperator;
      readonly left: RetryDelayNode;
      readonly right: RetryDelayNode;
      readonly position: number;
    }
  | {
      readonly kind: 'call';
      readonly name: RetryDelayFunctionName;
      readonly args: readonly RetryDelayNode[];
      readonly position: number;
    };

interface ParserState {
  readonly source: string;
  readonly tokens: readonly RetryDelayToken[];
  index: number;
  depth: number;
}

const VARIABLE = 'retried';
const UNIT_NAMES = new Set(['ms', 's', 'sec', 'secs', 'seconds', 'm', 'min', 'minutes', 'h', 'hours', 'd', 'days']);

/**
 * Parses a retry-delay expression into its syntax tree, checking names and argument counts so every
 * mistake is reported here, with its position, rather than when a retry is due.
 *
 * Grammar (usual precedence, binary operators left-associative, unary minus binds tightest):
 * ```
 * expression := term (('+' | '-') term)*
 * term       := unary (('*' | '/') unary)*
 * unary      := '-' unary | primary
 * primary    := number | 'retried' | name '(' expression (',' expression)* ')' | '(' expression ')'
 * ```
 *
 * @throws RetryDelaySyntaxError for any fault, never another error for a string input.
 * @example
 * parse('1 - 2 - 3'); // binary '-' whose left side is the binary '1 - 2'
 */
export function parse(source: string): RetryDelayNode {
  if (source.length > MAX_RETRY_DELAY_EXPRESSION_LENGTH) {
    throw new RetryDelaySyntaxError(
      source,
      MAX_RETRY_DELAY_EXPRESSION_LENGTH,
      `expression is longer than ${MAX_RETRY_DELAY_EXPRESSION_LENGTH} characters`,
    );
  }
  const state: ParserState = { source, tokens: tokenize(source), index: 0, depth: 0 };
  if (peek(state).type === 'end') {
    throw new RetryDelaySyntaxError(source, 0, "empty expression; write a delay in milliseconds such as '1000'");
  }
  const node = parseExpression(state, 0);
  expectEnd(state);
  return node;
}

// `openedAt` is the position of the token that opened this level, where a too-deep nesting is reported.
function parseExpression(state: ParserState, openedAt: number): RetryDelayNode {
  return nested(state, openedAt, () => parseBinary(state, ['+', '-'], () => parseTerm(state)));
}

function parseTerm(state: ParserState): RetryDelayNode {
  return parseBinary(state, ['*', '/'], () => parseUnary(state));
}

// One loop per precedence level: iterating rather than recursing keeps `1 + 1 + ... + 1` flat on the
// stack and makes the operators left-associative.
function parseBinary(
  state: ParserState,
  operators: readonly RetryDelayBinaryOperator[],
  parseOperand: () => RetryDelayNode,
): RetryDelayNode {
  let left = parseOperand();
  for (let token = peek(state); isPunctuation(token, ...operators); token = peek(state)) {
    state.index += 1;
    const right = parseOperand();
    left = { kind: 'binary', operator: token.char as RetryDelayBinaryOperator, left, right, position: token.position };
  }
  return left;
}

function parseUnary(state: ParserState): RetryDelayNode {
  const token = peek(state);
  if (isPunctuation(token, '-')) {
    state.index += 1;
    return nested(state, token.position, () => ({ kind: 'negate', operand: parseUnary(state), position: token.position }));
  }
  if (isPunctuation(token, '+')) {
    fail(state, token.position, "unary '+' is not supported; remove it");
  }
  return parsePrimary(state);
}

function parsePrimary(state: ParserState): RetryDelayNode {
  const token = peek(state);
  switch (token.type) {
    case 'number':
      state.index += 1;
      return { kind: 'number', value: token.value, position: token.position };
    case 'identifier':
      state.index += 1;
      return isPunctuation(peek(state), '(')
        ? parseCall(state, token.name, token.position)
        : parseVariable(state, token.name, token.position);
    case 'punctuation':
      if (token.char === '(') return parseParenthesised(state, token.position);
      return fail(state, token.position, `expected a number, 'retried', a function call or '(' but found '${token.char}'`);
    case 'end':
      return fail(state, token.position, "unexpected end of expression; expected a number, 'retried', a function call or '('");
  }
}

function parseParenthesised(state: ParserState, openPosition: number): RetryDelayNode {
  state.index += 1;
  if (isPunctuation(peek(state), ')')) {
    fail(state, peek(state).position, "empty parentheses; expected an expression inside '()'");
  }
  const inner = parseExpression(state, openPosition);
  const close = peek(state);
  if (!isPunctuation(close, ')')) {
    const expected = close.type === 'end' ? "')'" : "an operator or ')'";
    const reason = `expected ${expected} to close the '(' at position ${openPosition} but found ${describeToken(close)}`;
    fail(state, close.position, reason);
  }
  state.index += 1;
  return inner;
}

function parseVariable(state: ParserState, name: string, position: number): RetryDelayNode {
  if (name === VARIABLE) return { kind: 'retried', position };
  if (isRetryDelayFunctionName(name)) {
    return fail(state, position, `'${name}' is a function; call it like ${usage(name)}`);
  }
  const suggestion = suggestName(name, [VARIABLE]);
  const hint = suggestion ? `did you mean '${suggestion}'?` : `the only variable is '${VARIABLE}' (the retry count, 0 for the first retry)`;
  return fail(state, position, `unknown identifier '${name}'; ${hint}`);
}

function parseCall(state: ParserState, name: string, position: number): RetryDelayNode {
  if (!isRetryDelayFunctionName(name)) {
    if (name === VARIABLE) fail(state, position, `'${VARIABLE}' is a variable, not a function`);
    const suggestion = suggestName(name, RETRY_DELAY_FUNCTION_NAMES);
    const hint = suggestion ? `did you mean '${suggestion}'?` : `available functions: ${RETRY_DELAY_FUNCTION_NAMES.join(', ')}`;
    return fail(state, position, `unknown function '${name}'; ${hint}`);
  }
  const openPosition = peek(state).position;
  state.index += 1;
  const args: RetryDelayNode[] = [];
  const argPositions: number[] = [];
  let more = !isPunctuation(peek(state), ')');
  while (more) {
    argPositions.push(peek(state).position);
    args.push(parseExpression(state, openPosition));
    more = isPunctuation(peek(state), ',');
    if (more) state.index += 1;
  }
  const close = peek(state);
  if (!isPunctuation(close, ')')) {
    const expected = close.type === 'end' ? `')' to close the '(' at position ${openPosition}` : "an operator, ',' or ')'";
    fail(state, close.position, `expected ${expected} in the call of ${name} but found ${describeToken(close)}`);
  }
  state.index += 1;
  checkArity(state, name, argPositions, close.position);
  return { kind: 'call', name, args, position };
}

function checkArity(state: ParserState, name: RetryDelayFunctionName, argPositions: readonly number[], closePosition: number): void {
  const { minArgs, maxArgs } = RETRY_DELAY_FUNCTIONS[name];
  const count = argPositions.length;
  if (count >= minArgs && count <= maxArgs) return;
  const expected = minArgs === maxArgs ? `exactly ${minArgs}` : `at least ${minArgs}`;
  const plural = minArgs === 1 && minArgs === maxArgs ? 'argument' : 'arguments';
  // Too few: point where the missing argument belongs. Too many: point at the first one too many.
  const position = count < minArgs ? closePosition : (argPositions[maxArgs] ?? closePosition);
  fail(state, position, `${name} takes ${expected} ${plural} but got ${count}; write ${usage(name)}`);
}

function expectEnd(state: ParserState): void {
  const token = peek(state);
  if (token.type === 'end') return;
  if (isPunctuation(token, ')')) fail(state, token.position, "unmatched ')'; it has no '(' to close");
  if (token.type === 'identifier' && UNIT_NAMES.has(token.name)) {
    fail(state, token.position, `unexpected '${token.name}': units are not allowed, the result is always in milliseconds`);
  }
  fail(state, token.position, `expected an operator or the end of the expression but found ${describeToken(token)}`);
}

// Counts every recursive descent (parentheses, call arguments, unary minus) so hostile nesting ends
// in a RetryDelaySyntaxError long before the JavaScript stack could overflow.
function nested<T>(state: ParserState, openedAt: number, parseInner: () => T): T {
  if (state.depth >= MAX_RETRY_DELAY_NESTING) {
    fail(state, openedAt, `expression is nested more than ${MAX_RETRY_DELAY_NESTING} levels deep`);
  }
  state.depth += 1;
  const result = parseInner();
  state.depth -= 1;
  return result;
}

// `tokenize` always ends with an `end` token and the parser never moves past it.
function peek(state: ParserState): RetryDelayToken {
  return state.tokens[state.index] ?? { type: 'end', position: state.source.length };
}

function isPunctuation(
  token: RetryDelayToken,
  ...chars: readonly RetryDelayPunctuation[]
): token is RetryDelayToken & { type: 'punctuation' } {
  return token.type === 'punctuation' && chars.includes(token.char);
}

function describeToken(token: RetryDelayToken): string {
  switch (token.type) {
    case 'number':
      return `the number ${token.text}`;
    case 'identifier':
      return `'${token.name}'`;
    case 'punctuation':
      return `'${token.char}'`;
    case 'end':
      return 'the end of the expression';
  }
}

function usage(name: RetryDelayFunctionName): string {
  const { minArgs, maxArgs } = RETRY_DELAY_FUNCTIONS[name];
  if (maxArgs === Number.POSITIVE_INFINITY) return `${name}(a, b, ...)`;
  return minArgs === 1 ? `${name}(x)` : `${name}(a, b)`;
}

function fail(state: ParserState, position: number, reason: string): never {
  throw new RetryDelaySyntaxError(state.source, position, reason);
}

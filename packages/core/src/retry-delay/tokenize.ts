import { RetryDelaySyntaxError } from '../errors';

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

/**
 * The candidate closest to `name`, when it is close enough to be a likely typo (`retry` ->
 * `retried`, `Pow` -> `pow`), else `undefined`. The threshold grows with the length so short names
 * do not all suggest each other.
 *
 * @example
 * suggestName('retry', ['retried']); // 'retried'
 */
export function suggestName(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
    const threshold = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 2));
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= threshold && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

// Levenshtein with one rolling row; names are capped by the expression length, so this stays cheap.
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Single-character tokens: the operators, parentheses and the argument separator. */
export type RetryDelayPunctuation = '+' | '-' | '*' | '/' | '(' | ')' | ',';

/** A lexical token; `position` is its 0-based offset in the source. */
export type RetryDelayToken =
  | { readonly type: 'number'; readonly value: number; readonly text: string; readonly position: number }
  | { readonly type: 'identifier'; readonly name: string; readonly position: number }
  | { readonly type: 'punctuation'; readonly char: RetryDelayPunctuation; readonly position: number }
  | { readonly type: 'end'; readonly position: number };

const PUNCTUATION = new Set<string>(['+', '-', '*', '/', '(', ')', ',']);

/** Characters people reach for from other languages, with what to write instead. */
const UNSUPPORTED_HINTS: Readonly<Record<string, string>> = {
  '^': "'^' is not an operator here; use pow(a, b) for powers",
  '%': "'%' is not supported; use floor() and subtraction for a remainder",
};

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';
const isIdentifierStart = (char: string | undefined): boolean =>
  char !== undefined && ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char === '_');
const isIdentifierPart = (char: string | undefined): boolean => isIdentifierStart(char) || isDigit(char);
const isWhitespace = (char: string): boolean => char === ' ' || char === '\t' || char === '\n' || char === '\r';

/**
 * Splits an expression into tokens, always ending with an `end` token.
 *
 * Numbers are `123`, `1.5` or `.5`. A trailing dot (`1.`) and exponents (`1e3`) are refused: the
 * documentation never shows them, so a server could read them differently, and both have a plain
 * spelling.
 *
 * @example
 * tokenize('pow(2, retried)').map((t) => t.type);
 * // ['identifier', 'punctuation', 'number', 'punctuation', 'identifier', 'punctuation', 'end']
 */
export function tokenize(source: string): RetryDelayToken[] {
  const tokens: RetryDelayToken[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source.charAt(index);
    if (isWhitespace(char)) {
      index += 1;
    } else if (isDigit(char) || (char === '.' && isDigit(source[index + 1]))) {
      const token = readNumber(source, index);
      tokens.push(token);
      index += token.text.length;
    } else if (isIdentifierStart(char)) {
      const name = readWhile(source, index, isIdentifierPart);
      tokens.push({ type: 'identifier', name, position: index });
      index += name.length;
    } else if (char === '*' && source[index + 1] === '*') {
      throw new RetryDelaySyntaxError(source, index, "'**' is not an operator here; use pow(a, b) for powers");
    } else if (PUNCTUATION.has(char)) {
      tokens.push({ type: 'punctuation', char: char as RetryDelayPunctuation, position: index });
      index += 1;
    } else {
      const reason = UNSUPPORTED_HINTS[char] ?? `unexpected character ${describeChar(source, index)}`;
      throw new RetryDelaySyntaxError(source, index, reason);
    }
  }
  tokens.push({ type: 'end', position: source.length });
  return tokens;
}

function readNumber(source: string, start: number): RetryDelayToken & { type: 'number' } {
  let end = start + readWhile(source, start, isDigit).length;
  if (source[end] === '.') {
    const fraction = readWhile(source, end + 1, isDigit);
    if (fraction.length === 0) {
      const whole = source.slice(start, end);
      throw new RetryDelaySyntaxError(source, end, `expected a digit after '.'; write ${whole} or ${whole}.0`);
    }
    end += 1 + fraction.length;
  }
  if ((source[end] === 'e' || source[end] === 'E') && (isDigit(source[end + 1]) || source[end + 1] === '+' || source[end + 1] === '-')) {
    throw new RetryDelaySyntaxError(source, end, 'exponent notation is not supported; write the number out (1000) or use pow(10, 3)');
  }
  const text = source.slice(start, end);
  const value = Number(text);
  if (!Number.isFinite(value)) {
    throw new RetryDelaySyntaxError(source, start, 'number is too large');
  }
  return { type: 'number', value, text, position: start };
}

function readWhile(source: string, start: number, accept: (char: string | undefined) => boolean): string {
  let end = start;
  while (end < source.length && accept(source[end])) end += 1;
  return source.slice(start, end);
}

// Control and invisible characters print as nothing in a message, so show their code point.
function describeChar(source: string, index: number): string {
  const codePoint = source.codePointAt(index) ?? 0;
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  if (codePoint < 0x20 || codePoint === 0x7f) return hex;
  const shown = `'${String.fromCodePoint(codePoint)}'`;
  return codePoint > 0x7e ? `${shown} (${hex})` : shown;
}

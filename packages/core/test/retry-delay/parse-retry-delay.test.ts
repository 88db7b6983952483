import { describe, expect, it } from 'vitest';
import { parseRetryDelay } from '../../src/retry-delay';

const at = (expression: string, retried = 0): number => parseRetryDelay(expression).evaluate(retried);

describe('parseRetryDelay: documented examples', () => {
  it('a constant delay', () => {
    expect([0, 1, 5].map((n) => at('1000', n))).toEqual([1000, 1000, 1000]);
  });

  it('a linear delay', () => {
    expect([0, 1, 2].map((n) => at('1000 * (1 + retried)', n))).toEqual([1000, 2000, 3000]);
  });

  it('an exponential delay', () => {
    expect([0, 1, 2, 3].map((n) => at('pow(2, retried) * 1000', n))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('an exponential delay with a floor', () => {
    expect([0, 3, 4, 5].map((n) => at('max(1000, pow(2, retried) * 100)', n))).toEqual([1000, 1000, 1600, 3200]);
  });

  it('keeps the source as given and freezes the result', () => {
    const expression = parseRetryDelay(' pow(2, retried) ');
    expect(expression.source).toBe(' pow(2, retried) ');
    expect(Object.isFrozen(expression)).toBe(true);
  });

  it('evaluates the same compiled expression many times', () => {
    const expression = parseRetryDelay('1000 * (1 + retried)');
    const delays = Array.from({ length: 10_000 }, (_, n) => expression.evaluate(n));
    expect(delays[9_999]).toBe(10_000_000);
  });
});

describe('parseRetryDelay: numbers', () => {
  it.each([
    ['0', 0],
    ['1000', 1000],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['007', 7],
    ['0.25', 0.25],
  ])('reads %s', (source, value) => {
    expect(at(source)).toBe(value);
  });
});

describe('parseRetryDelay: precedence and associativity', () => {
  // Results below zero are clamped, so these add an offset to see the raw value.
  it.each([
    ['10 + 1 - 2 - 3', 6],
    ['2 * 3 + 4', 10],
    ['4 + 2 * 3', 10],
    ['(4 + 2) * 3', 18],
    ['100 / 10 / 2', 5],
    ['100 / 10 * 2', 20],
    ['10 - -2', 12],
    ['10 + -pow(2, 3)', 2],
    ['10 - -(-3)', 7],
    ['-2 * -3', 6],
    ['--5', 5],
    ['20 - 2 * 3 - 4', 10],
  ])('%s = %d', (source, value) => {
    expect(at(source)).toBe(value);
  });

  it('parses 1 - 2 - 3 left-associatively', () => {
    const { ast } = parseRetryDelay('1 - 2 - 3');
    expect(ast).toMatchObject({
      kind: 'binary',
      operator: '-',
      position: 6,
      left: { kind: 'binary', operator: '-', left: { value: 1 }, right: { value: 2 }, position: 2 },
      right: { kind: 'number', value: 3 },
    });
  });

  it('applies unary minus to the whole call in -pow(2,3)', () => {
    const { ast } = parseRetryDelay('-pow(2,3)');
    expect(ast).toMatchObject({ kind: 'negate', position: 0, operand: { kind: 'call', name: 'pow', position: 1 } });
  });

  it('binds * tighter than + in 2 * 3 + 4', () => {
    expect(parseRetryDelay('2 * 3 + 4').ast).toMatchObject({ kind: 'binary', operator: '+', left: { operator: '*' } });
  });
});

describe('parseRetryDelay: functions', () => {
  it.each([
    ['pow(2, 10)', 1024],
    ['pow(9, 0.5)', 3],
    ['sqrt(16)', 4],
    ['abs(-7)', 7],
    ['abs(7)', 7],
    ['floor(2.7)', 2],
    ['floor(-2.5) + 10', 7],
    ['ceil(2.1)', 3],
    ['round(2.5)', 3],
    ['round(2.4)', 2],
    ['min(3, 1, 2)', 1],
    ['min(5, 9)', 5],
    ['max(3, 1, 2)', 3],
    ['max(5, 9)', 9],
    ['exp(0)', 1],
  ])('%s = %d', (source, value) => {
    expect(at(source)).toBe(value);
  });

  it('exp(1) is e', () => {
    expect(at('exp(1)')).toBeCloseTo(Math.E, 12);
  });

  it('nests calls and uses retried inside them', () => {
    expect(at('min(86400000, max(1000, floor(sqrt(retried) * 1000)))', 16)).toBe(4000);
  });
});

describe('parseRetryDelay: whitespace', () => {
  it.each(['pow(2,retried)*1000', '  pow ( 2 , retried ) * 1000  ', '\tpow(2,\nretried)\r\n*1000'])('accepts %j', (source) => {
    expect(at(source, 3)).toBe(8000);
  });
});

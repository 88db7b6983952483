import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { parseRetryDelay } from '../../src/retry-delay';

// Fragments of the language, so random strings often get deep into the parser instead of failing
// on the first character.
const fragment = fc.constantFrom(
  ...['retried', 'retry', 'pow', 'sqrt', 'abs', 'exp', 'floor', 'ceil', 'round', 'min', 'max', 'log'],
  ...['0', '1', '2', '1000', '.5', '1.', '1e3', '+', '-', '*', '/', '(', ')', ',', ' ', '^', '%', 'é'],
);
const nearlyValid = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''));

function parseOutcome(source: string): 'parsed' | 'refused' {
  try {
    const expression = parseRetryDelay(source);
    for (const retried of [0, 1, 7, 1000]) {
      try {
        const delay = expression.evaluate(retried);
        expect(Number.isFinite(delay) && delay >= 0).toBe(true);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
      }
    }
    return 'parsed';
  } catch (error) {
    if (error instanceof ValidationError) return 'refused';
    throw error;
  }
}

describe('parseRetryDelay on arbitrary input', () => {
  it('returns or throws a ValidationError for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (source) => {
        parseOutcome(source);
      }),
    );
  });

  it('returns or throws a ValidationError for strings built from the language, and evaluates to a delay', () => {
    fc.assert(
      fc.property(nearlyValid, (source) => {
        parseOutcome(source);
      }),
      { numRuns: 2000 },
    );
  });
});

// A well-formed expression with its value computed independently of the parser, so precedence,
// associativity and the functions are checked on shapes no hand-written test thought of.
interface Generated {
  readonly text: string;
  readonly value: (retried: number) => number;
}

const leaf: fc.Arbitrary<Generated> = fc.oneof(
  fc.integer({ min: 0, max: 1000 }).map((n) => ({ text: String(n), value: () => n })),
  fc.constant<Generated>({ text: 'retried', value: (r) => r }),
);

const generated = fc.letrec<{ node: Generated }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', maxDepth: 12, withCrossShrink: true },
    leaf,
    fc.tuple(tie('node'), fc.constantFrom('+', '-', '*'), tie('node')).map(([a, op, b]) => ({
      text: `(${a.text}) ${op} (${b.text})`,
      value: (r: number) => (op === '+' ? a.value(r) + b.value(r) : op === '-' ? a.value(r) - b.value(r) : a.value(r) * b.value(r)),
    })),
    tie('node').map((a) => ({ text: `-(${a.text})`, value: (r: number) => -a.value(r) })),
    fc.tuple(fc.constantFrom('abs', 'floor', 'ceil'), tie('node')).map(([name, a]) => ({
      text: `${name}(${a.text})`,
      value: (r: number) => Math[name](a.value(r)),
    })),
    fc.tuple(fc.constantFrom('min', 'max'), tie('node'), tie('node')).map(([name, a, b]) => ({
      text: `${name}(${a.text}, ${b.text})`,
      value: (r: number) => Math[name](a.value(r), b.value(r)),
    })),
  ),
})).node;

describe('parseRetryDelay on generated well-formed expressions', () => {
  it('parses them and computes the independent value, clamped at 0', () => {
    fc.assert(
      fc.property(generated, fc.integer({ min: 0, max: 20 }), (expression, retried) => {
        fc.pre(expression.text.length <= 1000);
        const expected = expression.value(retried);
        fc.pre(Number.isFinite(expected));
        expect(parseRetryDelay(expression.text).evaluate(retried)).toBe(Math.max(0, expected) + 0);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors';
import { RetryDelaySyntaxError } from '../../src/errors';
import { ValidationError } from '../../src/errors';
import { buildEnqueueHeaders } from '../../src/enqueue-headers';
import { forwardedHeaders } from '../../src/receive/delivery-headers';
import { MAX_RETRY_DELAY_EXPRESSION_LENGTH, parseRetryDelay } from '../../src/retry-delay';
import { formatServiceTimestamp, parseServiceTimestampParts, safeParseServiceTimestamp } from '../../src/service-timestamp';
import { enqueueOptionsInput, enqueueOptionsWithUnknown, headerRecord } from './arbitraries';
import { fcParams, timeoutFor } from './fc-settings';

// Point 1 of the issue asks 10,000 runs of the verifier properties; these cheaper properties get
// 5,000 in `npm test` (FC_NUM_RUNS raises them too), which keeps the whole file to a few seconds.
const RUNS = 5_000;
const TIMEOUT = timeoutFor(RUNS, 4);

// What may go on the wire: an RFC 9110 token as the name; visible Latin-1 and tabs in the value,
// never CR, LF or NUL (header injection), and nothing `Headers` (i.e. fetch) would refuse.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SAFE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const PREFIXES = ['Service', 'Upstash', 'Acme-Queue2'] as const;

/** The builder's result, or `undefined` when it refused with a ValidationError (anything else fails). */
function buildOrRefuse(options: unknown, headerPrefix: string): Record<string, string> | undefined {
  try {
    return buildEnqueueHeaders(options as never, { headerPrefix });
  } catch (error) {
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
}

/** The forwarded headers of enqueue options, as the destination should see them: lower-case names. */
function expectedForwarded(headers: unknown): Record<string, string> {
  const entries: Array<[string, string]> =
    headers instanceof Headers ? [...headers.entries()] : Object.entries(headers as Record<string, string>);
  return Object.fromEntries(entries.map(([name, value]) => [name.toLowerCase(), value]));
}

describe('buildEnqueueHeaders on any input', () => {
  it(
    'emits only valid names and CR/LF/NUL-free values, or throws ValidationError',
    () => {
      let built = 0;
      fc.assert(
        fc.property(enqueueOptionsWithUnknown, fc.constantFrom(...PREFIXES), (options, prefix) => {
          const out = buildOrRefuse(options, prefix);
          if (out === undefined) return;
          built += 1;
          for (const [name, value] of Object.entries(out)) {
            expect(name, `header name ${JSON.stringify(name)}`).toMatch(TOKEN);
            expect(value, `value of ${name}`).toMatch(SAFE_VALUE);
          }
          // What fetch would do with them: a bad name or value throws a bare TypeError here.
          expect(() => new Headers(out)).not.toThrow();
        }),
        fcParams(RUNS),
      );
      // Hostile inputs must not drown the property in refusals: many runs reach the end.
      expect(built).toBeGreaterThan(RUNS / 20);
    },
    TIMEOUT,
  );

  it(
    'throws only ValidationError for options that are not even objects',
    () => {
      fc.assert(
        fc.property(fc.anything(), (options) => {
          buildOrRefuse(options, 'Service');
        }),
        fcParams(1000),
      );
    },
    TIMEOUT,
  );

  it(
    'refuses an unusable header prefix with a ConfigError naming MAILROOM_HEADER_PREFIX, before reading any option',
    () => {
      fc.assert(
        fc.property(
          fc.string({ maxLength: 12 }).filter((prefix) => !/^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$/.test(prefix)),
          enqueueOptionsInput,
          (prefix, options) => {
            const error = (() => {
              try {
                buildEnqueueHeaders(options as never, { headerPrefix: prefix });
              } catch (caught) {
                return caught;
              }
              return undefined;
            })();
            // Unknown keys and bad values may be found first; a bad prefix is a setting, hence ConfigError.
            if (error instanceof ConfigError) expect(error.variable).toBe('MAILROOM_HEADER_PREFIX');
            else expect(error).toBeInstanceOf(ValidationError);
          },
        ),
        fcParams(1000),
      );
    },
    TIMEOUT,
  );
});

describe('forwardedHeaders(buildEnqueueHeaders(x))', () => {
  const withForwards = fc.record({ options: enqueueOptionsInput, headers: headerRecord, prefix: fc.constantFrom(...PREFIXES) });

  it(
    'gives back exactly the forwarded headers of x, names lower-cased',
    () => {
      let roundTrips = 0;
      fc.assert(
        fc.property(withForwards, ({ options, headers, prefix }) => {
          const out = buildOrRefuse({ ...options, headers }, prefix);
          if (out === undefined) return;
          roundTrips += 1;
          expect(forwardedHeaders(out, { headerPrefix: prefix })).toEqual(expectedForwarded(headers));
        }),
        fcParams(RUNS),
      );
      expect(roundTrips).toBeGreaterThan(RUNS / 20);
    },
    TIMEOUT,
  );

  it(
    'survives a real Headers object too, where HTTP trims surrounding spaces and tabs off values',
    () => {
      fc.assert(
        fc.property(withForwards, ({ options, headers, prefix }) => {
          const out = buildOrRefuse({ ...options, headers }, prefix);
          if (out === undefined) return;
          // RFC 9110 5.5: a field value never begins or ends with whitespace, so a forwarded value
          // like " a " arrives as "a"; every other byte survives.
          const trimmed = Object.fromEntries(
            Object.entries(expectedForwarded(headers)).map(([name, value]) => [name, value.replace(/^[\t ]+|[\t ]+$/g, '')]),
          );
          expect(forwardedHeaders(new Headers(out), { headerPrefix: prefix })).toEqual(trimmed);
        }),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );
});

describe('parseRetryDelay on hostile input', () => {
  /** Parses and evaluates; only RetryDelaySyntaxError may come out, pointing inside the source. */
  function outcome(source: string): 'parsed' | 'refused' {
    let expression;
    try {
      expression = parseRetryDelay(source);
    } catch (error) {
      expectOwnError(error, source);
      return 'refused';
    }
    for (const retried of [0, 1, 7, 30, 1000, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      try {
        const delay = expression.evaluate(retried);
        expect(Number.isFinite(delay) && delay >= 0, `${source} at retried=${retried} gave ${delay}`).toBe(true);
      } catch (error) {
        expectOwnError(error, source);
      }
    }
    return 'parsed';
  }

  function expectOwnError(error: unknown, source: string): void {
    if (!(error instanceof RetryDelaySyntaxError)) throw error;
    expect(error.position).toBeGreaterThanOrEqual(0);
    expect(error.position).toBeLessThanOrEqual(Math.max(source.length, MAX_RETRY_DELAY_EXPRESSION_LENGTH));
    // A megabyte of input must not come back as a megabyte of error message (logs, HTTP bodies).
    expect(error.message.length).toBeLessThan(4000);
  }

  const opener = fc.constantFrom('(', '-', 'abs(', 'floor(', 'min(1,', 'max(retried,', 'pow(2,', '-(', 'sqrt(', 'exp(');
  const nested = fc
    .record({
      openers: fc.array(opener, { maxLength: 40 }),
      depth: fc.integer({ min: 0, max: 3000 }),
      inner: fc.constantFrom('retried', '1', '0', ''),
      close: fc.boolean(),
    })
    .map(({ openers, depth, inner, close }) => {
      const open = (openers.length === 0 ? ['('] : openers).join('');
      const prefix = open.repeat(Math.max(1, Math.ceil(depth / Math.max(1, open.length))));
      const closers = prefix.replace(/[^(]/g, '').replace(/\(/g, ')');
      return prefix + inner + (close ? closers : '');
    });
  const huge = fc
    .record({
      unit: fc.constantFrom('retried+', '1*', '(', ')', '9', ' ', 'a', 'é', '\n', 'min(1,'),
      times: fc.oneof(fc.integer({ min: 100, max: 2000 }), fc.constantFrom(20_000, 200_000)),
    })
    .map(({ unit, times }) => unit.repeat(times));
  const nearLimit = fc
    .integer({ min: MAX_RETRY_DELAY_EXPRESSION_LENGTH - 3, max: MAX_RETRY_DELAY_EXPRESSION_LENGTH + 3 })
    .chain((length) => fc.constantFrom('1+', 'retried*', '9').map((unit) => unit.repeat(length).slice(0, length)));

  it(
    'throws nothing but its own error, and terminates, on deep nesting, huge inputs and any string',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(nested, huge, nearLimit, fc.string({ unit: 'binary', maxLength: 1200 }), fc.string({ unit: 'grapheme', maxLength: 50 })),
          (source) => {
            outcome(source);
          },
        ),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );

  it(
    'accepts the deepest allowed nesting and refuses one level more, for every kind of nesting',
    () => {
      for (const [open, close] of [
        ['(', ')'],
        ['abs(', ')'],
        ['min(1,', ')'],
        ['-', ''],
      ] as const) {
        const depthOf = (levels: number) => `${open.repeat(levels)}retried${close.repeat(levels)}`;
        let deepest = 0;
        while (outcome(depthOf(deepest + 1)) === 'parsed') deepest += 1;
        expect(deepest, `nesting with ${open}`).toBeGreaterThan(10);
        expect(outcome(depthOf(deepest + 50))).toBe('refused');
      }
    },
    TIMEOUT,
  );

  it(
    'throws only ValidationError for values that are not strings',
    () => {
      fc.assert(
        fc.property(
          fc.anything().filter((value) => typeof value !== 'string'),
          (value) => {
            expect(() => parseRetryDelay(value as string)).toThrow(ValidationError);
          },
        ),
        fcParams(1000),
      );
    },
    TIMEOUT,
  );
});

describe('statistics timestamps', () => {
  const dates = fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
  const nanoseconds = fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(0, 1, 999_999_999, 500_000_000, 100, 123_000_000));

  it(
    'round-trip: parseServiceTimestampParts(formatServiceTimestamp(d, ns)) gives back the second, the nanoseconds and the same text',
    () => {
      fc.assert(
        fc.property(dates, nanoseconds, (date, ns) => {
          const text = formatServiceTimestamp(date, ns);
          const parts = parseServiceTimestampParts(text);
          expect(parts.nanoseconds).toBe(ns);
          expect(parts.offsetMinutes).toBe(0);
          const wholeSecond = Math.floor(date.getTime() / 1000) * 1000;
          expect(parts.date.getTime()).toBe(wholeSecond + Math.floor(ns / 1_000_000));
          // Go's layout has one spelling per instant: printing the parsed parts gives the same text.
          expect(formatServiceTimestamp(parts.date, parts.nanoseconds)).toBe(text);
        }),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );

  it(
    'round-trip without nanoseconds keeps the millisecond',
    () => {
      fc.assert(
        fc.property(dates, (date) => {
          expect(parseServiceTimestampParts(formatServiceTimestamp(date)).date.getTime()).toBe(date.getTime());
        }),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );

  it(
    'never throws while safe-parsing, whatever the input; the throwing form throws only ValidationError',
    () => {
      const timestampLike = fc
        .tuple(fc.string({ unit: fc.constantFrom(...'0123456789-: .+UTCm='), maxLength: 50 }), fc.string({ maxLength: 10 }))
        .map(([a, b]) => a + b);
      fc.assert(
        fc.property(fc.oneof(timestampLike, fc.anything()), (value) => {
          const result = safeParseServiceTimestamp(value as string);
          if (!result.ok) expect(() => parseServiceTimestampParts(value as string)).toThrow(ValidationError);
          else expect(Number.isNaN(result.parts.date.getTime())).toBe(false);
        }),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );
});

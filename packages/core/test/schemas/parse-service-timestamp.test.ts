import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { formatServiceTimestamp, parseServiceTimestamp, parseServiceTimestampParts, safeParseServiceTimestamp } from '../../src/schemas';

describe('parseServiceTimestampParts', () => {
  it('reads a whole second (no fraction)', () => {
    const parts = parseServiceTimestampParts('2025-10-01 11:33:05 +0000 UTC');
    expect(parts.date.toISOString()).toBe('2025-10-01T11:33:05.000Z');
    expect(parts.nanoseconds).toBe(0);
    expect(parts.offsetMinutes).toBe(0);
  });

  it('reads 3 fraction digits as milliseconds', () => {
    const parts = parseServiceTimestampParts('2025-10-01 11:33:05.585 +0000 UTC');
    expect(parts.date.toISOString()).toBe('2025-10-01T11:33:05.585Z');
    expect(parts.nanoseconds).toBe(585_000_000);
  });

  it('reads 9 fraction digits, truncating the Date and keeping the exact nanoseconds', () => {
    const parts = parseServiceTimestampParts('2025-10-01 11:33:05.585757103 +0000 UTC');
    expect(parts.date.toISOString()).toBe('2025-10-01T11:33:05.585Z');
    expect(parts.nanoseconds).toBe(585_757_103);
  });

  it('reads a trimmed fraction as the leading digits (".5" is half a second)', () => {
    expect(parseServiceTimestampParts('2025-10-01 11:33:05.5 +0000 UTC').nanoseconds).toBe(500_000_000);
    expect(parseServiceTimestampParts('2025-10-01 11:33:05.000001 +0000 UTC').nanoseconds).toBe(1000);
  });

  it('never rounds up into the next second', () => {
    expect(parseServiceTimestamp('2025-12-31 23:59:59.999999999 +0000 UTC').toISOString()).toBe('2025-12-31T23:59:59.999Z');
  });

  it('applies other offsets, with an abbreviation or a numeric zone name', () => {
    const cest = parseServiceTimestampParts('2025-10-01 13:33:05.5 +0200 CEST');
    expect(cest.date.toISOString()).toBe('2025-10-01T11:33:05.500Z');
    expect(cest.offsetMinutes).toBe(120);
    expect(parseServiceTimestamp('2025-10-01 08:03:05 -0330 -0330').toISOString()).toBe('2025-10-01T11:33:05.000Z');
    expect(parseServiceTimestamp('2025-10-01 17:03:05 +0530 +0530').toISOString()).toBe('2025-10-01T11:33:05.000Z');
    expect(parseServiceTimestamp('2025-10-01 14:33:05 +0300 +03').toISOString()).toBe('2025-10-01T11:33:05.000Z');
  });

  it("ignores Go's monotonic clock suffix", () => {
    expect(parseServiceTimestamp('2025-10-01 11:33:05.5 +0000 UTC m=+0.001234567').toISOString()).toBe('2025-10-01T11:33:05.500Z');
  });

  it('keeps years below 100 as written (no 19xx mapping) and knows leap years', () => {
    expect(parseServiceTimestamp('0050-03-01 00:00:00 +0000 UTC').getUTCFullYear()).toBe(50);
    expect(parseServiceTimestamp('2024-02-29 00:00:00 +0000 UTC').toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it.each([
    ['an empty string', ''],
    ['ISO 8601', '2025-10-01T11:33:05.585Z'],
    ['no zone', '2025-10-01 11:33:05 +0000'],
    ['no offset', '2025-10-01 11:33:05 UTC'],
    ['ten fraction digits', '2025-10-01 11:33:05.5857571030 +0000 UTC'],
    ['a dot without digits', '2025-10-01 11:33:05. +0000 UTC'],
    ['a comma fraction', '2025-10-01 11:33:05,585 +0000 UTC'],
    ['a two-digit year', '25-10-01 11:33:05 +0000 UTC'],
    ['surrounding space', ' 2025-10-01 11:33:05 +0000 UTC'],
    ['trailing text', '2025-10-01 11:33:05 +0000 UTC extra'],
    ['month 13', '2025-13-01 11:33:05 +0000 UTC'],
    ['month 0', '2025-00-01 11:33:05 +0000 UTC'],
    ['February 30', '2025-02-30 11:33:05 +0000 UTC'],
    ['February 29 of a common year', '2025-02-29 11:33:05 +0000 UTC'],
    ['hour 24', '2025-10-01 24:00:00 +0000 UTC'],
    ['a leap second', '2025-06-30 23:59:60 +0000 UTC'],
    ['offset hour 24', '2025-10-01 11:33:05 +2400 UTC'],
    ['offset minute 60', '2025-10-01 11:33:05 +0060 UTC'],
  ])('rejects %s with a ValidationError, never an Invalid Date', (_label, value) => {
    expect(() => parseServiceTimestampParts(value)).toThrow(ValidationError);
    expect(() => parseServiceTimestamp(value)).toThrow(/timestamp/);
    expect(safeParseServiceTimestamp(value).ok).toBe(false);
  });

  it('says what the layout is when the form is wrong', () => {
    expect(() => parseServiceTimestamp('yesterday')).toThrow(
      '"yesterday" is not a timestamp of the form YYYY-MM-DD HH:MM:SS[.fffffffff] +0000 UTC',
    );
    expect(() => parseServiceTimestamp('2025-02-30 00:00:00 +0000 UTC')).toThrow('day 30 out of range');
  });

  it('rejects a value that is not a string', () => {
    expect(() => parseServiceTimestamp(1_760_441_585 as unknown as string)).toThrow(ValidationError);
  });
});

describe('formatServiceTimestamp', () => {
  it('prints a whole second without a dot', () => {
    expect(formatServiceTimestamp(new Date('2025-10-01T11:33:05.000Z'))).toBe('2025-10-01 11:33:05 +0000 UTC');
  });

  it('trims trailing zeros of the fraction as Go does', () => {
    expect(formatServiceTimestamp(new Date('2025-10-01T11:33:05.500Z'))).toBe('2025-10-01 11:33:05.5 +0000 UTC');
    expect(formatServiceTimestamp(new Date('2025-10-01T11:33:05.585Z'))).toBe('2025-10-01 11:33:05.585 +0000 UTC');
    expect(formatServiceTimestamp(new Date('2025-10-01T11:33:05.010Z'))).toBe('2025-10-01 11:33:05.01 +0000 UTC');
  });

  it('prints nanoseconds, which replace the Date milliseconds', () => {
    const date = new Date('2025-10-01T11:33:05.999Z');
    expect(formatServiceTimestamp(date, 585_757_103)).toBe('2025-10-01 11:33:05.585757103 +0000 UTC');
    expect(formatServiceTimestamp(date, 1)).toBe('2025-10-01 11:33:05.000000001 +0000 UTC');
    expect(formatServiceTimestamp(date, 0)).toBe('2025-10-01 11:33:05 +0000 UTC');
  });

  it('always prints UTC, whatever the process time zone', () => {
    expect(formatServiceTimestamp(parseServiceTimestamp('2025-10-01 13:33:05 +0200 CEST'))).toBe('2025-10-01 11:33:05 +0000 UTC');
  });

  it('pads small years to four digits', () => {
    const date = new Date(0);
    date.setUTCFullYear(7, 0, 2);
    expect(formatServiceTimestamp(date)).toBe('0007-01-02 00:00:00 +0000 UTC');
  });

  it.each([
    ['an Invalid Date', new Date('nope'), undefined, /valid Date/],
    ['a year after 9999', new Date(Date.UTC(10_000, 0, 1)), undefined, /year 10000/],
    ['a negative year', new Date(Date.UTC(-1, 0, 1)), undefined, /year -1/],
    ['negative nanoseconds', new Date(0), -1, /nanoseconds/],
    ['a whole second of nanoseconds', new Date(0), 1_000_000_000, /nanoseconds/],
    ['fractional nanoseconds', new Date(0), 1.5, /nanoseconds/],
    ['NaN nanoseconds', new Date(0), Number.NaN, /nanoseconds/],
  ])('rejects %s', (_label, date, nanoseconds, message) => {
    expect(() => formatServiceTimestamp(date, nanoseconds)).toThrow(ValidationError);
    expect(() => formatServiceTimestamp(date, nanoseconds)).toThrow(message);
  });
});

describe('round trips', () => {
  it.each([
    '2025-10-01 11:33:05 +0000 UTC',
    '2025-10-01 11:33:05.5 +0000 UTC',
    '2025-10-01 11:33:05.585 +0000 UTC',
    '2025-10-01 11:33:05.585757103 +0000 UTC',
    '2025-10-01 00:00:00.000000001 +0000 UTC',
    '1970-01-01 00:00:00 +0000 UTC',
    '1969-12-31 23:59:59.999999999 +0000 UTC',
  ])('format(parse(%j)) gives the same string', (value) => {
    const { date, nanoseconds } = parseServiceTimestampParts(value);
    expect(formatServiceTimestamp(date, nanoseconds)).toBe(value);
  });

  it('parse(format(date)) gives the same instant for millisecond dates', () => {
    const date = new Date('2025-10-14T11:33:05.585Z');
    expect(parseServiceTimestamp(formatServiceTimestamp(date)).getTime()).toBe(date.getTime());
  });

  const saneDates = fc.date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });

  it('property: any date and nanoseconds survive format then parse', () => {
    fc.assert(
      fc.property(saneDates, fc.integer({ min: 0, max: 999_999_999 }), (date, nanoseconds) => {
        const text = formatServiceTimestamp(date, nanoseconds);
        const parts = parseServiceTimestampParts(text);
        const wholeSecond = Math.floor(date.getTime() / 1000) * 1000;
        expect(parts.nanoseconds).toBe(nanoseconds);
        expect(parts.date.getTime()).toBe(wholeSecond + Math.floor(nanoseconds / 1_000_000));
        expect(formatServiceTimestamp(parts.date, parts.nanoseconds)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: any date survives format then parse without nanoseconds', () => {
    fc.assert(
      fc.property(saneDates, (date) => {
        expect(parseServiceTimestamp(formatServiceTimestamp(date)).getTime()).toBe(date.getTime());
      }),
      { numRuns: 2000 },
    );
  });
});

import { ResponseValidationError } from '../errors';
import { z } from 'zod';

/** The body of every error answer: `{"error": "topic orders not found"}`. */
export const errorBodySchema = z.looseObject({ error: z.string() });
/** The body of an error answer. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

// Go's http.Header is name -> []string, but some answers (the callback's `sourceHeader`) write a
// single string. Both are accepted and the parsed value is always an array, so callers handle one
// shape.
const headerValuesSchema = z.union([z.array(z.string()), z.string()]).transform((value) => (typeof value === 'string' ? [value] : value));

/** Header name -> values, as the service writes headers (`{"Content-Type": ["application/json"]}`). */
const headerMapSchema = z.record(z.string(), headerValuesSchema);

/** Header name -> values. Names keep the spelling the service sent (usually canonical Go casing). */
export type HeaderMap = z.output<typeof headerMapSchema>;

/**
 * An optional header map. A Go nil map arrives as `null`; it is read as absent so the field is
 * `HeaderMap | undefined`, never `null`.
 */
export const optionalHeaderMapSchema = headerMapSchema
  .nullish()
  .transform((value) => value ?? undefined)
  .optional();

/**
 * A string with documented values that still admits others: editors offer the known ones, and an
 * unknown one type-checks without a cast. `(string & {})` keeps TypeScript from collapsing the union
 * to plain `string`, which would lose the suggestions.
 */
export type KnownString<Known extends string> = Known | (string & {});

/**
 * Schema for a response field whose documented values may grow. The service adds plan types,
 * regions and states without a new API version; failing a whole `users()` call because one account
 * is in a region we have not heard of would be worse than handing the caller an unexpected string.
 * Inputs the user sends are validated strictly elsewhere (`z.enum`), not with this.
 */
export function knownString<const Known extends readonly string[]>(_known: Known): z.ZodType<KnownString<Known[number]>, string> {
  // The list only feeds the type: any string is accepted at run time, which is the point.
  return z.string() as unknown as z.ZodType<KnownString<Known[number]>, string>;
}

/**
 * An array the service writes from a Go slice: an empty slice can arrive as `null` (a nil slice) or
 * be left out (`omitempty`). Both mean "none", so the parsed value is always an array and callers
 * never need a null check.
 */
export function nilSafeArray<Item extends z.ZodType>(item: Item) {
  return z
    .array(item)
    .nullish()
    .transform((items): z.output<Item>[] => items ?? []);
}

const NUMERIC = /^-?\d+(?:\.\d+)?$/;

/**
 * A number that some answers spell as a string (`"1701198447054"`): the callback body's `createdAt`
 * and `notBefore`, and `workflowCreatedAt`, which the service copies from a header. Both forms give
 * a number; a string that is not a plain decimal is an error rather than `NaN`.
 */
export const numberOrNumericStringSchema = z.union([z.number(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  if (NUMERIC.test(value)) return Number(value);
  ctx.issues.push({
    code: 'custom',
    input: value,
    message: `expected a number or a numeric string, got ${JSON.stringify(value.slice(0, 40))}`,
  });
  return z.NEVER;
});

/** The first problem of a failed parse, in words a user can act on. */
export interface SchemaIssueSummary {
  /** Dotted path of the offending field, e.g. `messages.0.dlqId`; empty for the value itself. */
  field: string;
  /** A short reason, e.g. `expected string, got number` or `is missing (expected string)`. */
  reason: string;
}

/**
 * Validates a response body and returns the parsed value (with transforms applied: parsed dates,
 * numeric strings as numbers, `null` arrays as `[]`).
 *
 * Only the first issue is reported: one named field is what a user needs to report drift in the
 * service, and zod's full list can be long for an array of a hundred entries.
 *
 * @example
 * const page = parseResponse(dlqListResponseSchema, await res.json(), url);
 * @throws {ResponseValidationError} naming the first offending field, e.g. `messages.0.dlqId`.
 */
export function parseResponse<T>(schema: z.ZodType<T>, value: unknown, url: string): T {
  // reportInput puts the offending value on each issue, so the reason can say what was received.
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const { field, reason } = describeFirstIssue(result.error.issues);
  throw new ResponseValidationError({ field, url, reason });
}

/**
 * Summarises the first issue of a zod error as a dotted field path and a short reason. Unions are
 * unwrapped: when every branch failed on the value's type the reason lists the accepted types,
 * otherwise the branch that got furthest into the value is reported.
 *
 * @example describeFirstIssue(schema.safeParse(v).error!.issues) // { field: 'messages.0.dlqId', reason: 'is missing (expected string)' }
 */
export function describeFirstIssue(issues: readonly z.core.$ZodIssue[]): SchemaIssueSummary {
  const first = issues[0];
  if (!first) return { field: '', reason: 'is invalid' };
  return describe(first, []);
}

function describe(issue: z.core.$ZodIssue, base: PropertyKey[]): SchemaIssueSummary {
  const path = [...base, ...issue.path];
  switch (issue.code) {
    case 'invalid_type':
      return { field: dotted(path), reason: typeReason([issue.expected], issue.input) };
    case 'invalid_value':
      return { field: dotted(path), reason: `expected ${issue.values.map(show).join(' or ')}, got ${show(issue.input)}` };
    case 'invalid_union': {
      const branches = issue.errors.map((branch) => branch[0]).filter((b): b is z.core.$ZodIssue => b !== undefined);
      // Every branch rejected the value itself by type (e.g. number | string): name all the types.
      if (branches.length > 0 && branches.every((b) => b.code === 'invalid_type' && b.path.length === 0)) {
        const expected = branches.map((b) => (b.code === 'invalid_type' ? b.expected : ''));
        return { field: dotted(path), reason: typeReason(expected, issue.input) };
      }
      // Otherwise the branch whose first issue is deepest is the one the value was meant for.
      const deepest = branches.reduce<z.core.$ZodIssue | undefined>(
        (best, b) => (!best || b.path.length > best.path.length ? b : best),
        undefined,
      );
      return deepest ? describe(deepest, path) : { field: dotted(path), reason: 'matches none of the accepted shapes' };
    }
    case 'unrecognized_keys':
      return { field: dotted(path), reason: `has unexpected key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(show).join(', ')}` };
    default:
      // Custom issues (timestamps, numeric strings) already carry a readable message; zod's own
      // messages for the remaining codes (too_small, invalid_format, ...) are short enough.
      return { field: dotted(path), reason: lowerFirst(issue.message) };
  }
}

function typeReason(expected: readonly string[], input: unknown): string {
  const list = [...new Set(expected)].join(' or ');
  return input === undefined ? `is missing (expected ${list})` : `expected ${list}, got ${kindOf(input)}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined) return 'nothing';
  if (typeof value === 'object' && value !== null) return kindOf(value);
  return String(value);
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map((segment) => (typeof segment === 'symbol' ? (segment.description ?? 'symbol') : String(segment))).join('.');
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

import type { z } from 'zod';
import { ResponseValidationError } from '../errors/response-validation-error';

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
 * {@link parseResponse} with a hand-written check in front: a value `isPlain` accepts is returned as
 * it is, anything else gets zod's full parse (and its error). `isPlain` must accept only values the
 * schema returns unchanged, which a property test holds it to.
 *
 * @example parseResponseFast(enqueueResultSchema, isPlainEnqueueResult, value, url)
 */
export function parseResponseFast<T>(schema: z.ZodType<T>, isPlain: (value: unknown) => value is T, value: unknown, url: string): T {
  return isPlain(value) ? value : parseResponse(schema, value, url);
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

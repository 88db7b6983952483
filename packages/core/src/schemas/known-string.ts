import { z } from 'zod';

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

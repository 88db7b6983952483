import { z } from 'zod';

// Go's http.Header is name -> []string, but some answers (the callback's `sourceHeader`) write a
// single string. Both are accepted and the parsed value is always an array, so callers handle one
// shape.
const headerValuesSchema = z.union([z.array(z.string()), z.string()]).transform((value) => (typeof value === 'string' ? [value] : value));

/** Header name -> values, as the service writes headers (`{"Content-Type": ["application/json"]}`). */
export const headerMapSchema = z.record(z.string(), headerValuesSchema);

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

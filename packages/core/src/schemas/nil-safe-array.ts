import { z } from 'zod';

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

import { z } from 'zod';

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

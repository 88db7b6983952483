import { z } from 'zod';

/** The body of every error answer: `{"error": "topic orders not found"}`. */
export const errorBodySchema = z.looseObject({ error: z.string() });
/** The body of an error answer. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

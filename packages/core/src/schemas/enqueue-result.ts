import { z } from 'zod';

/** The answer of an enqueue to a URL or API destination, and one element of a URL-group answer. */
export const enqueueResultSchema = z.looseObject({
  /** For a duplicate, the id of the message already accepted. */
  messageId: z.string(),
  /** `true` when the message was a duplicate and was not sent again. */
  deduplicated: z.boolean().optional(),
  /** The endpoint this element is for (URL-group answers). */
  url: z.string().optional(),
});
/** The result of one enqueued delivery. */
export type EnqueueResult = z.infer<typeof enqueueResultSchema>;

/** An enqueue to a URL group answers a bare array, one element per endpoint. */
export const urlGroupEnqueueResultSchema = z.array(enqueueResultSchema);
/** The answer of an enqueue to a URL group. */
export type UrlGroupEnqueueResult = z.infer<typeof urlGroupEnqueueResultSchema>;

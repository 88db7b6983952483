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

/**
 * Whether `value` is an enqueue result that {@link enqueueResultSchema} would accept unchanged: the
 * answer the service sends every time. Checking it by hand costs a fraction of a zod parse, which
 * matters at thousands of enqueues a second; anything else goes through zod, for its exact error.
 *
 * @example isPlainEnqueueResult({ messageId: 'msg_1' }) // true
 */
export function isPlainEnqueueResult(value: unknown): value is EnqueueResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const result = value as Record<string, unknown>;
  return (
    typeof result.messageId === 'string' &&
    // JSON.parse makes `"__proto__"` an own key, which zod's copy would drop: zod decides that one.
    !Object.hasOwn(result, '__proto__') &&
    (result.deduplicated === undefined || typeof result.deduplicated === 'boolean') &&
    (result.url === undefined || typeof result.url === 'string')
  );
}

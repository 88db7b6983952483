import { z } from 'zod';
import { nilSafeArray } from './nil-safe-array';

// An endpoint added without a name is stored without one: `name` may be absent or empty, and the
// `url` is what identifies it. Nothing else is optional: a group always has a name and timestamps.
/** One endpoint of a URL group. */
export const urlGroupEndpointSchema = z.looseObject({
  /** Absent or empty when the endpoint was added without a name. */
  name: z.string().optional(),
  url: z.string(),
});
/** One endpoint of a URL group. */
export type UrlGroupEndpoint = z.infer<typeof urlGroupEndpointSchema>;

/** A URL group (`GET /v2/topics` answers an array of these). */
export const urlGroupSchema = z.looseObject({
  /** Unix milliseconds. */
  createdAt: z.number(),
  /** Unix milliseconds. */
  updatedAt: z.number(),
  name: z.string(),
  endpoints: nilSafeArray(urlGroupEndpointSchema),
});
/** A URL group. */
export type UrlGroup = z.infer<typeof urlGroupSchema>;

/** The answer of `GET /v2/topics`. */
export const urlGroupListSchema = nilSafeArray(urlGroupSchema);

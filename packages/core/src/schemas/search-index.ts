import { z } from 'zod';
import { knownString } from './known-string';
import { nilSafeArray } from './nil-safe-array';
import { pointSchema } from './statistics';

/** Regions a search index can be created in. */
export const SEARCH_INDEX_REGIONS = ['eu-west-1', 'us-central1'] as const;
/** Payment plans of a search index. */
export const SEARCH_INDEX_TYPES = ['free', 'payg', 'fixed'] as const;
/** A region a search index can be created in. */
export type SearchIndexRegion = (typeof SEARCH_INDEX_REGIONS)[number];
/** A search index payment plan. */
export type SearchIndexType = (typeof SEARCH_INDEX_TYPES)[number];

/** The limit value that means "no limit" on the daily and monthly search index limits. */
export const SEARCH_INDEX_UNLIMITED = -1;

// Lenient on `type` and `region` (a new region must not break reading an index) but every
// documented field is required. `-1` is kept as a number rather than mapped to Infinity or null:
// it survives JSON round trips and matches what the service and its dashboard show.
/** A search index (management `POST /search`, `GET /search/{id}`). Unknown fields are kept. */
export const searchIndexSchema = z.looseObject({
  customer_id: z.string(),
  id: z.string(),
  name: z.string(),
  /** A host label such as `glowing-baboon-15797-us1`, not a URL. */
  endpoint: z.string(),
  type: knownString(SEARCH_INDEX_TYPES),
  region: knownString(SEARCH_INDEX_REGIONS),
  /** Empty string when there is no third-party integration. */
  integration_email: z.string(),
  token: z.string(),
  read_only_token: z.string(),
  max_vector_count: z.number(),
  /** `-1` means unlimited. */
  max_monthly_reranks: z.number(),
  /** `-1` means unlimited. */
  max_daily_updates: z.number(),
  /** `-1` means unlimited. */
  max_daily_queries: z.number(),
  /** Bytes; `-1` means unlimited. */
  max_monthly_bandwidth: z.number(),
  max_writes_per_second: z.number(),
  max_query_per_second: z.number(),
  max_reads_per_request: z.number(),
  max_writes_per_request: z.number(),
  /** Unix seconds. */
  creation_time: z.number(),
  input_enrichment_enabled: z.boolean(),
  /** Same point shape and timestamp layout as statistics; each point gets its parsed `date`. */
  throughput_vector: nilSafeArray(pointSchema),
});
/** A search index. */
export type SearchIndex = z.infer<typeof searchIndexSchema>;

// Strict, unlike the response schemas: this checks what the user is about to send, so a typo in a
// region or an extra key is caught before the request rather than answered with a 400.
/** The body of `POST /search`. */
export const createSearchIndexInputSchema = z.strictObject({
  name: z.string().regex(/\S/, 'must not be empty'),
  region: z.enum(SEARCH_INDEX_REGIONS),
  type: z.enum(SEARCH_INDEX_TYPES),
});
/** What `searchIndexes.create` takes. */
export type CreateSearchIndexInput = z.infer<typeof createSearchIndexInputSchema>;

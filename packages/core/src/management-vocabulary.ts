// The management interface's closed vocabularies and the one check of a search index to create,
// shared by the client (before it sends) and the dev server (when one arrives), so both give the same
// verdict. Without zod: the dev server reads these without loading the response schemas.
import { describeValue } from './errors';

/** The `period` values `GET /messaging/stats/{id}` accepts; the service defaults to `1h`. */
export const STATS_PERIODS = ['1h', '3h', '12h', '1d', '3d', '7d', '30d'] as const;
/** A statistics period. */
export type StatsPeriod = (typeof STATS_PERIODS)[number];

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

/** What `searchIndexes.create` takes: the body of `POST /search`. */
export interface CreateSearchIndexInput {
  /** The index's name: anything but blank. */
  name: string;
  /** Where the index lives. */
  region: SearchIndexRegion;
  /** Its payment plan. */
  type: SearchIndexType;
}

const INPUT_KEYS: ReadonlySet<string> = new Set(['name', 'region', 'type']);

/**
 * Checks a search index to create: `name` (not blank), `region` and `type`, all required, nothing
 * else (strict, unlike what is read back: a typo in a region or an extra key is caught before the
 * request). Returns the field at fault (`''` for the whole input) and what is wrong.
 */
export function checkSearchIndexInput(
  input: unknown,
): { ok: true; input: CreateSearchIndexInput } | { ok: false; field: string; message: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, field: '', message: `expected { name, region, type }, got ${describeValue(input)}` };
  }
  const { name, region, type } = input as Record<string, unknown>;
  if (typeof name !== 'string' || !/\S/.test(name)) {
    return { ok: false, field: 'name', message: `expected a name that is not blank, got ${describeValue(name)}` };
  }
  if (!(SEARCH_INDEX_REGIONS as readonly unknown[]).includes(region)) {
    return { ok: false, field: 'region', message: `expected one of ${SEARCH_INDEX_REGIONS.join(', ')}, got ${describeValue(region)}` };
  }
  if (!(SEARCH_INDEX_TYPES as readonly unknown[]).includes(type)) {
    return { ok: false, field: 'type', message: `expected one of ${SEARCH_INDEX_TYPES.join(', ')}, got ${describeValue(type)}` };
  }
  const extra = Object.keys(input).filter((key) => !INPUT_KEYS.has(key));
  if (extra.length > 0)
    return {
      ok: false,
      field: '',
      message: `unknown key ${extra.map((key) => JSON.stringify(key)).join(', ')}: only name, region and type`,
    };
  return { ok: true, input: { name, region: region as SearchIndexRegion, type: type as SearchIndexType } };
}

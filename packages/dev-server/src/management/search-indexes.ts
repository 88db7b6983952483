import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { CreateSearchIndexInput, SearchIndexType } from '@mailroom/core';
import { createSearchIndexInputSchema, SEARCH_INDEX_UNLIMITED } from '@mailroom/core/protocol';
import type { SearchIndexRecord } from '../state/records';

interface IndexLimits {
  max_vector_count: number;
  max_monthly_reranks: number;
  max_daily_updates: number;
  max_daily_queries: number;
  max_monthly_bandwidth: number;
  max_writes_per_second: number;
  max_query_per_second: number;
  max_reads_per_request: number;
  max_writes_per_request: number;
}

// The dev server's choice of limits per index plan; `-1` (unlimited) on the daily and monthly ones
// where a pay-as-you-go or fixed plan has no such cap.
const LIMITS: Readonly<Record<SearchIndexType, IndexLimits>> = {
  free: {
    max_vector_count: 10_000,
    max_monthly_reranks: 0,
    max_daily_updates: 10_000,
    max_daily_queries: 10_000,
    max_monthly_bandwidth: 53_687_091_200,
    max_writes_per_second: 1000,
    max_query_per_second: 1000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
  },
  payg: {
    max_vector_count: 100_000_000,
    max_monthly_reranks: SEARCH_INDEX_UNLIMITED,
    max_daily_updates: SEARCH_INDEX_UNLIMITED,
    max_daily_queries: SEARCH_INDEX_UNLIMITED,
    max_monthly_bandwidth: SEARCH_INDEX_UNLIMITED,
    max_writes_per_second: 1000,
    max_query_per_second: 1000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
  },
  fixed: {
    max_vector_count: 1_000_000_000,
    max_monthly_reranks: SEARCH_INDEX_UNLIMITED,
    max_daily_updates: SEARCH_INDEX_UNLIMITED,
    max_daily_queries: SEARCH_INDEX_UNLIMITED,
    max_monthly_bandwidth: SEARCH_INDEX_UNLIMITED,
    max_writes_per_second: 5000,
    max_query_per_second: 5000,
    max_reads_per_request: 1000,
    max_writes_per_request: 1000,
  },
};

const ADJECTIVES = ['glowing', 'quiet', 'brave', 'sunny', 'swift', 'clever', 'gentle', 'bold'];
const ANIMALS = ['baboon', 'otter', 'falcon', 'lynx', 'heron', 'panda', 'marten', 'ibex'];
const REGION_SUFFIX: Record<string, string> = { 'eu-west-1': 'eu1', 'us-central1': 'us1' };

/** Checks a `POST /search` body: `name`, `region` and `type`, all required, nothing else. */
export function readSearchIndexInput(body: unknown): { ok: true; input: CreateSearchIndexInput } | { ok: false; message: string } {
  const checked = createSearchIndexInputSchema.safeParse(body);
  if (checked.success) return { ok: true, input: checked.data };
  const issue = checked.error.issues[0];
  return {
    ok: false,
    message: `invalid search index: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'expected { name, region, type }'}`,
  };
}

/**
 * A new index record with the limits of its plan: `endpoint` is a host label like the service's
 * (`glowing-baboon-15797-us1`), `creation_time` Unix seconds, tokens random.
 */
export function newSearchIndex(input: CreateSearchIndexInput, owner: string, now: number): SearchIndexRecord {
  const pick = (words: readonly string[]) => words[randomInt(words.length)] ?? words[0] ?? 'index';
  return {
    customer_id: owner,
    id: randomUUID(),
    name: input.name,
    endpoint: `${pick(ADJECTIVES)}-${pick(ANIMALS)}-${randomInt(10_000, 100_000)}-${REGION_SUFFIX[input.region] ?? 'us1'}`,
    type: input.type,
    region: input.region,
    integration_email: '',
    token: randomBytes(32).toString('base64url'),
    read_only_token: randomBytes(32).toString('base64url'),
    ...LIMITS[input.type],
    creation_time: Math.floor(now / 1000),
    input_enrichment_enabled: false,
    throughput_vector: [],
  };
}

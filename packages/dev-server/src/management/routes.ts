import { badRequest, notFound } from '../errors';
import { json, type Reply, readJson, type Route } from '../http/router';
import type { Service } from '../service';
import { dlqLive } from '../state/dev-state';
import { isStatsPeriod, messagingStats } from './stats';
import type { DevCredentials } from '../credentials';
import type { PlanLimits } from '../settings';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { CreateSearchIndexInput, MessagingUser, SearchIndexType } from '@mailroom/core';
import { checkSearchIndexInput, SEARCH_INDEX_UNLIMITED } from '@mailroom/core/internal-protocol';
import type { SearchIndexRecord } from '../state/records';

/** The path every management route sits under; `managementUrl` ends here. */
export const MANAGEMENT_BASE_PATH = '/management/v2';

/** The management interface (spec endpoints 1 to 4), behind Basic auth. */
export function managementRoutes(service: Service): Route[] {
  const route = (method: string, path: string, handler: Route['handler'], query: readonly string[] = []): Route => ({
    method,
    path: `${MANAGEMENT_BASE_PATH}${path}`,
    auth: 'management',
    readOnly: 'refuse',
    query,
    handler,
  });
  return [
    route('GET', '/messaging/users', () => json([messagingUser(service.credentials, service.plan)])),
    route('GET', '/messaging/stats/:id', (request) => stats(service, request.params.id ?? '', request.query.get('period')), ['period']),
    route('POST', '/search', async (request) => {
      // The client's own check: both give the same verdict on the same body.
      const checked = checkSearchIndexInput(await readJson(request));
      if (!checked.ok) throw badRequest(`invalid search index: ${checked.field || 'body'}: ${checked.message}`);
      const index = newSearchIndex(checked.input, service.credentials.managementUser, service.config.now());
      await service.store.commit({ type: 'index.created', index });
      return json(index);
    }),
    route('GET', '/search/:id', (request) => {
      const index = service.store.state.indexes.get(request.params.id ?? '');
      if (!index) throw notFound(`search index ${request.params.id ?? ''} not found`);
      return json(index);
    }),
  ];
}

function stats(service: Service, id: string, period: string | null): Reply {
  if (id !== service.credentials.userId) throw notFound(`messaging user ${id} not found`);
  const chosen = period === null || period === '' ? '1h' : period;
  if (!isStatsPeriod(chosen)) throw badRequest(`invalid period ${JSON.stringify(chosen)}: use 1h, 3h, 12h, 1d, 3d, 7d or 30d`);
  const now = service.config.now();
  const expiry = { now, dlqRetentionMs: service.plan.max_dlq_retention_time_milis };
  const dlqCount = [...service.store.state.dlq.values()].filter((entry) => dlqLive(entry.at, expiry)).length;
  return json(messagingStats(service.store.state, chosen, now, dlqCount));
}

/**
 * The dev server's one messaging user, every field of the spec's table: its real tokens, and the
 * limits of the plan the server runs with (the ones the enqueue enforces).
 */
function messagingUser(credentials: DevCredentials, plan: PlanLimits): MessagingUser {
  const { defaultRetries: _defaultRetries, type, prod_pack_enabled, ...limits } = plan;
  return {
    customer_id: credentials.managementUser,
    id: credentials.userId,
    token: credentials.token,
    read_only_token: credentials.readOnlyToken,
    active: true,
    state: 'active',
    last_plan_upgrade_time: credentials.createdAt,
    ...limits,
    prod_pack_enabled,
    prometheus_enabled: 'false',
    type,
    region: 'us-east-1',
    reserved_type: '',
    reserved_price: 0,
    created_by: credentials.managementUser,
    creation_time: credentials.createdAt,
    deletion_time: 0,
  };
}

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

/**
 * A new index record with the limits of its plan: `endpoint` is a host label like the service's
 * (`glowing-baboon-15797-us1`), `creation_time` Unix seconds, tokens random.
 */
function newSearchIndex(input: CreateSearchIndexInput, owner: string, now: number): SearchIndexRecord {
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

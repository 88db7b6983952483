import { badRequest, notFound } from '../errors';
import { json, type Reply } from '../http/reply';
import { readJson } from '../http/request';
import type { Route } from '../http/router';
import type { Service } from '../service';
import { dlqLive } from '../state/dev-state';
import { newSearchIndex, readSearchIndexInput } from './search-indexes';
import { isStatsPeriod, messagingStats } from './stats';
import type { MessagingUser } from '@mailroom/core';
import type { DevCredentials } from '../credentials';
import type { PlanLimits } from '../plans';

/** The path every management route sits under; `managementUrl` ends here. */
export const MANAGEMENT_BASE_PATH = '/management/v2';

/** The management interface (spec endpoints 1 to 4), behind Basic auth. */
export function managementRoutes(service: Service): Route[] {
  const route = (method: string, path: string, handler: Route['handler']): Route => ({
    method,
    path: `${MANAGEMENT_BASE_PATH}${path}`,
    auth: 'management',
    handler,
  });
  return [
    route('GET', '/messaging/users', () => json([messagingUser(service.credentials, service.plan)])),
    route('GET', '/messaging/stats/:id', (request) => stats(service, request.params.id ?? '', request.query.get('period'))),
    route('POST', '/search', async (request) => {
      const checked = readSearchIndexInput(await readJson(request));
      if (!checked.ok) throw badRequest(checked.message);
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

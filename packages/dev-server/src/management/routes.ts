import { readJsonBody, badRequest, notFound, json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import { dlqLive } from '../state/dev-state';
import { newSearchIndex, readSearchIndexInput } from './search-indexes';
import { isStatsPeriod, messagingStats } from './stats';
import type { MessagingUser } from '@mailroom/core';
import type { DevCredentials } from '../credentials';
import type { PlanLimits } from '../plans';

/** The path every management route sits under; `managementUrl` ends here. */
export const MANAGEMENT_BASE_PATH = '/management/v2';

/** The management interface (spec endpoints 1 to 4), behind Basic auth. */
export function managementRoutes(ctx: ServerContext): Route[] {
  const route = (method: string, path: string, handler: Route['handler']): Route => ({
    method,
    path: `${MANAGEMENT_BASE_PATH}${path}`,
    auth: 'management',
    handler,
  });
  return [
    route('GET', '/messaging/users', () => json([messagingUser(ctx.credentials, ctx.plan)])),
    route('GET', '/messaging/stats/:id', (request) => stats(ctx, request.params.id ?? '', request.query.get('period'))),
    route('POST', '/search', async (request) => {
      const checked = readSearchIndexInput(await readJsonBody(request.req));
      if (!checked.ok) throw badRequest(checked.message);
      const index = newSearchIndex(checked.input, ctx.credentials.managementUser, ctx.config.now());
      await ctx.store.commit({ type: 'index.created', index });
      return json(index);
    }),
    route('GET', '/search/:id', (request) => {
      const index = ctx.store.state.indexes.get(request.params.id ?? '');
      if (!index) throw notFound(`search index ${request.params.id ?? ''} not found`);
      return json(index);
    }),
  ];
}

function stats(ctx: ServerContext, id: string, period: string | null): Reply {
  if (id !== ctx.credentials.userId) throw notFound(`messaging user ${id} not found`);
  const chosen = period === null || period === '' ? '1h' : period;
  if (!isStatsPeriod(chosen)) throw badRequest(`invalid period ${JSON.stringify(chosen)}: use 1h, 3h, 12h, 1d, 3d, 7d or 30d`);
  const now = ctx.config.now();
  const expiry = { now, dlqRetentionMs: ctx.plan.max_dlq_retention_time_milis };
  const dlqCount = [...ctx.store.state.dlq.values()].filter((entry) => dlqLive(entry.at, expiry)).length;
  return json(messagingStats(ctx.store.state, chosen, now, dlqCount));
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

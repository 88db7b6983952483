import { readJsonBody } from '../http/read-body';
import { badRequest, notFound } from '../http/http-error';
import { json, type Reply } from '../http/reply';
import type { Route } from '../http/router';
import type { ServerContext } from '../server-context';
import { dlqLive } from '../state/expiry';
import { newSearchIndex, readSearchIndexInput } from './search-indexes';
import { isStatsPeriod, messagingStats } from './stats';
import { messagingUser } from './users';

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

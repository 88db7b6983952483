import { type Route, type RouteRequest, readJson, empty, json, type Reply } from './router';
import type { UrlGroupRecord } from '../state/records';
import { checkUrl, resourceName, badRequest, notFound, planLimit } from '../errors';
import type { Service } from '../service';

/** URL groups, the service's `topics`: list (spec 5), add endpoints (creates the group), remove endpoints (spec 6). */
export function urlGroupRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/topics',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => json([...service.store.state.groups.values()].map(view)),
    },
    {
      method: 'GET',
      path: '/v2/topics/:name',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => json(view(existing(service, request.params.name))),
    },
    {
      method: 'DELETE',
      path: '/v2/topics/:name',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async (request) => {
        const group = existing(service, request.params.name);
        await service.store.commit({ type: 'group.updated', name: group.name, group: null });
        return empty();
      },
    },
    {
      method: 'POST',
      path: '/v2/topics/:name/endpoints',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => addEndpoints(service, request),
    },
    {
      method: 'DELETE',
      path: '/v2/topics/:name/endpoints',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => removeEndpoints(service, request),
    },
  ];
}

async function addEndpoints(service: Service, request: RouteRequest): Promise<Reply> {
  const name = groupName(request.params.name);
  const endpoints = readEndpoints(await readJson(request)).map((endpoint, index) => {
    const url = endpoint.url;
    if (typeof url !== 'string') throw badRequest(`endpoints[${index}].url is required`);
    checkUrl(url, `endpoints[${index}]`);
    // An empty name is no name, as the service lists unnamed endpoints with `"name": ""`.
    if (endpoint.name === undefined || endpoint.name === '') return { url };
    return { url, name: resourceName(`endpoints[${index}].name`, endpoint.name) };
  });
  const { state } = service.store;
  const now = service.config.now();
  const current = state.groups.get(name);
  if (!current && state.groups.size >= service.plan.max_topics) {
    throw planLimit(`the ${service.plan.type} plan allows ${service.plan.max_topics} URL group(s)`);
  }
  const merged = [...(current?.endpoints ?? [])];
  for (const endpoint of endpoints) {
    const clash =
      endpoint.name === undefined ? undefined : merged.find((other) => other.name === endpoint.name && other.url !== endpoint.url);
    if (clash) throw badRequest(`endpoint name ${endpoint.name} is already used for ${clash.url} in topic ${name}`);
    const same = merged.findIndex((other) => other.url === endpoint.url);
    if (same === -1) merged.push(endpoint);
    else merged[same] = endpoint;
  }
  if (merged.length > service.plan.max_endpoints_per_topic) {
    throw planLimit(`the ${service.plan.type} plan allows ${service.plan.max_endpoints_per_topic} endpoints per URL group`);
  }
  const group: UrlGroupRecord = { name, createdAt: current?.createdAt ?? now, updatedAt: now, endpoints: merged };
  await service.store.commit({ type: 'group.updated', name, group });
  return empty();
}

async function removeEndpoints(service: Service, request: RouteRequest): Promise<Reply> {
  const current = existing(service, request.params.name);
  const refs = readEndpoints(await readJson(request));
  for (const [index, ref] of refs.entries()) {
    if (typeof ref.name !== 'string' && typeof ref.url !== 'string') throw badRequest(`endpoints[${index}] needs a name or a url`);
  }
  const remaining = current.endpoints.filter(
    (endpoint) =>
      !refs.some((ref) => (ref.name !== undefined && ref.name === endpoint.name) || (ref.url !== undefined && ref.url === endpoint.url)),
  );
  // The spec: a group whose last endpoint is removed is deleted.
  const group = remaining.length === 0 ? null : { ...current, updatedAt: service.config.now(), endpoints: remaining };
  await service.store.commit({ type: 'group.updated', name: current.name, group });
  return empty();
}

function existing(service: Service, name: string | undefined): UrlGroupRecord {
  const group = service.store.state.groups.get(name ?? '');
  if (!group) throw notFound(`topic ${name ?? ''} not found`);
  return group;
}

function groupName(name: string | undefined): string {
  return resourceName('topic name', name);
}

function readEndpoints(body: unknown): Array<{ url?: unknown; name?: unknown }> {
  const endpoints = (body as { endpoints?: unknown } | undefined)?.endpoints;
  if (!Array.isArray(endpoints) || endpoints.length === 0) throw badRequest('body must be {"endpoints": [...]} with at least one endpoint');
  return endpoints.map((endpoint, index) => {
    if (endpoint === null || typeof endpoint !== 'object') throw badRequest(`endpoints[${index}] must be an object`);
    return endpoint as { url?: unknown; name?: unknown };
  });
}

/** A group as the service lists it: every endpoint with its `name`, `""` when it has none. */
function view(group: UrlGroupRecord): Record<string, unknown> {
  const endpoints = group.endpoints.map((endpoint) => ({ name: endpoint.name ?? '', url: endpoint.url }));
  return { createdAt: group.createdAt, updatedAt: group.updatedAt, name: group.name, endpoints };
}

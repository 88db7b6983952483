import { ValidationError } from '../errors';
import { checkHttpUrl, checkName } from '../enqueue-headers';
import type { UrlGroup } from '../schemas';
import type { ServiceConnection } from './connection';
import { getResource, signalOf } from './listing';

// URL groups (`topics` on the wire): a name that fans one message out to several endpoints.

/** An endpoint to add to a URL group. */
export interface NewEndpoint {
  url: string;
  name?: string;
}

/** An endpoint to remove, identified by its name or its URL. */
export type EndpointRef = { name: string; url?: never } | { url: string; name?: never };

/** `GET /v2/topics`: every URL group with its endpoints. */
export function listUrlGroups(connection: ServiceConnection, options: { signal?: AbortSignal } = {}): Promise<UrlGroup[]> {
  return getResource(connection, ['v2', 'topics'], 'urlGroupList', options);
}

/** `GET /v2/topics/{name}`: one URL group; an unknown name is a `NotFoundError`. */
export function getUrlGroup(connection: ServiceConnection, name: string, options?: { signal?: AbortSignal }): Promise<UrlGroup> {
  const group = checkName('name', name);
  return getResource(connection, ['v2', 'topics', group], 'urlGroup', options);
}

/** `DELETE /v2/topics/{name}`: deletes a URL group and its endpoints; an unknown name is a `NotFoundError`. */
export async function deleteUrlGroup(connection: ServiceConnection, name: string, options?: { signal?: AbortSignal }): Promise<void> {
  const group = checkName('name', name);
  await connection.requester.request({ method: 'DELETE', path: ['v2', 'topics', group], ...signalOf(options) });
}

/** `POST /v2/topics/{name}/endpoints`: adds endpoints, creating the group when it does not exist. */
export async function addEndpoints(connection: ServiceConnection, name: string, endpoints: readonly NewEndpoint[]): Promise<void> {
  const group = checkName('name', name);
  const body = checkList(endpoints).map((endpoint, index) => {
    const at = `endpoints.${index}`;
    if (endpoint === null || typeof endpoint !== 'object') throw new ValidationError(at, 'expected { url, name? }');
    const url = checkHttpUrl(`${at}.url`, endpoint.url);
    if (endpoint.name === undefined) return { url };
    return { url, name: checkName(`${at}.name`, endpoint.name) };
  });
  await connection.requester.request({ method: 'POST', path: ['v2', 'topics', group, 'endpoints'], json: { endpoints: body } });
}

/**
 * `DELETE /v2/topics/{name}/endpoints`: removes endpoints by name or URL. Removing the last endpoint
 * deletes the group; an unknown group is a `NotFoundError`.
 */
export async function removeEndpoints(connection: ServiceConnection, name: string, endpoints: readonly EndpointRef[]): Promise<void> {
  const group = checkName('name', name);
  const body = checkList(endpoints).map((endpoint, index) => {
    const at = `endpoints.${index}`;
    if (endpoint === null || typeof endpoint !== 'object') throw new ValidationError(at, 'expected { name } or { url }');
    const hasName = endpoint.name !== undefined;
    const hasUrl = endpoint.url !== undefined;
    if (hasName === hasUrl) throw new ValidationError(at, 'identify the endpoint by exactly one of name or url');
    return hasName ? { name: checkName(`${at}.name`, endpoint.name) } : { url: checkHttpUrl(`${at}.url`, endpoint.url) };
  });
  await connection.requester.request({ method: 'DELETE', path: ['v2', 'topics', group, 'endpoints'], json: { endpoints: body } });
}

function checkList<T>(endpoints: readonly T[]): readonly T[] {
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new ValidationError('endpoints', 'expected a non-empty array of endpoints');
  }
  return endpoints;
}

import { createReceiver } from '@mailroom/core';
import type { Endpoint } from '@mailroom/core/adapter';
import type { ConformanceTarget, RunningTarget, TargetRequest, TargetResponse, TargetSetup } from '../target';

/** No server: requests never leave the process, so any origin will do as long as it is a valid URL. */
const ORIGIN = 'http://conformance.test';

type Dispatch = (endpoint: Endpoint, request: TargetRequest) => Promise<TargetResponse>;

/** The pipeline as adapters see it: `handle` over plain data (what Express, Nest and Next Pages use). */
export const coreTarget: ConformanceTarget = {
  name: 'core pipeline (handle)',
  start: async (setup) => startCore(setup, viaHandle),
};

/** The pipeline through the Web `Request`/`Response` path (what the App Router and edge runtimes use). */
export const coreFetchTarget: ConformanceTarget = {
  name: 'core pipeline (fetch)',
  start: async (setup) => startCore(setup, viaFetch),
};

/** The suite's three endpoints of one core receiver, by path. */
export function coreRoutes(setup: TargetSetup): Map<string, Endpoint> {
  const receiver = createReceiver(setup.options);
  return new Map<string, Endpoint>([
    [setup.paths.destination, receiver.destination(setup.destination.definition, setup.destination.handler)],
    [setup.paths.callback, receiver.callback(setup.callback, setup.callbackOptions)],
    [setup.paths.failureCallback, receiver.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
  ]);
}

function startCore(setup: TargetSetup, dispatch: Dispatch): RunningTarget {
  const routes = coreRoutes(setup);
  return {
    origin: ORIGIN,
    send: async (request) => {
      const endpoint = routes.get(request.path.split('?', 1)[0] ?? '');
      return endpoint ? dispatch(endpoint, request) : { status: 404, headers: {}, body: 'Not found' };
    },
    close: async () => {},
  };
}

const viaHandle: Dispatch = async (endpoint, request) => {
  // A copy, so the pipeline sees the header names exactly as the case wrote them (any letter case).
  const { status, headers, body } = await endpoint.handle({
    method: request.method,
    url: request.path,
    headers: { ...request.headers },
    rawBody: request.body,
  });
  return { status, headers: lowerCaseNames(headers), body };
};

const viaFetch: Dispatch = async (endpoint, request) => {
  // GET and HEAD may not carry a body in a Web Request, even an empty one.
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  const response = await endpoint.fetch(
    new Request(ORIGIN + request.path, { method: request.method, headers: request.headers, ...(hasBody ? { body: request.body } : {}) }),
  );
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
};

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

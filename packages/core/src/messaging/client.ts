import { checkBaseUrl, optionalSetting, processEnvironment, requiredSetting, resolveHeaderPrefix } from '../config';
import type { DestinationDefinition, PayloadOf } from '../contract';
import { createRequester, type HttpTransport, type Requester } from '../http';
import { requesterSettings, type SharedClientOptions } from '../http/options';
import type { DlqWorkflowMessage, RetriggerResponse, UrlGroup } from '../schemas';
import { enqueue, enqueueJSON, type EnqueueRequest, type EnqueueResponse, type EnqueueResult, send, type SendOptions } from './enqueue';
import {
  addEndpoints,
  listUrlGroups,
  removeEndpoints,
  type EndpointRef,
  type NewEndpoint,
  iterateWorkflowDlq,
  listWorkflowDlq,
  retriggerFailureCallback,
  type WorkflowDlqFilter,
  type WorkflowDlqPage,
} from './resources';

/** What every messaging resource function needs: one transport and the resolved settings. */
export interface MessagingContext {
  transport: Requester;
  headerPrefix: string;
  /** Public base URL of the receiving app; `send(def, ...)` resolves `def.path` against it. */
  appUrl: string | undefined;
}

/**
 * `{ transport }` when one was given, else nothing, so an explicit `undefined` never reaches the
 * transport's validation (where it would read as "no transport" anyway, but named as given).
 */
export function transportOption(transport: HttpTransport | undefined): { transport?: HttpTransport } {
  return transport === undefined ? {} : { transport };
}

export interface MessagingClientOptions extends SharedClientOptions {
  /** The service's messaging base URL (`{base_url}`); `/v2/...` is appended. Env: `MAILROOM_URL`. */
  baseUrl?: string;
  /** Bearer token. Env: `MAILROOM_TOKEN`. */
  token?: string;
  /** Vendor header prefix. Env: `MAILROOM_HEADER_PREFIX`; default `Service`. */
  headerPrefix?: string;
  /** Public base URL of the receiving app, for `send(def, ...)`. Env: `MAILROOM_APP_URL`. */
  appUrl?: string;
  /**
   * Sends the requests instead of `fetch`. On Node, `createUndiciTransport()` from
   * `@mailroom/core/undici` (needs the `undici` package) is several times faster than the global
   * fetch; leave it out on edge runtimes. Exclusive with `fetch`.
   */
  transport?: HttpTransport;
}

export interface MessagingClient {
  enqueue<const D extends string>(request: EnqueueRequest<D>): Promise<EnqueueResponse<D>>;
  enqueueJSON<const D extends string, T>(
    request: Omit<EnqueueRequest<D>, 'body' | 'contentType'> & { body: T },
  ): Promise<EnqueueResponse<D>>;
  send<D extends DestinationDefinition>(definition: D, payload: PayloadOf<D>, options?: SendOptions): Promise<EnqueueResult>;
  urlGroups: {
    list(options?: { signal?: AbortSignal }): Promise<UrlGroup[]>;
    addEndpoints(name: string, endpoints: readonly NewEndpoint[]): Promise<void>;
    removeEndpoints(name: string, endpoints: readonly EndpointRef[]): Promise<void>;
  };
  workflowDlq: {
    list(filter?: WorkflowDlqFilter): Promise<WorkflowDlqPage>;
    iterate(filter?: WorkflowDlqFilter): AsyncGenerator<DlqWorkflowMessage, void, undefined>;
    retriggerFailureCallback(dlqId: string, options?: { signal?: AbortSignal }): Promise<RetriggerResponse>;
  };
  /** The resolved header prefix, e.g. for building receivers with the same setting. */
  readonly headerPrefix: string;
}

/**
 * A client of the messaging interface. Every setting falls back to its `MAILROOM_*` variable.
 *
 * @example
 * const client = createMessagingClient({ baseUrl: 'http://127.0.0.1:8288', token: 'dev-token' });
 * await client.enqueueJSON({ queue: 'emails', destination: 'https://app.test/api/send', body: { to: 'a@b.c' }, retries: 3 });
 */
export function createMessagingClient(options: MessagingClientOptions = {}): MessagingClient {
  const env = options.env ?? processEnvironment();
  const baseUrl = checkBaseUrl('baseUrl', requiredSetting('baseUrl', options.baseUrl, env, 'It is the messaging base URL of the service.'));
  const token = requiredSetting('token', options.token, env, 'It is the messaging token of the service.');
  const appUrlSetting = optionalSetting('appUrl', options.appUrl, env);
  const context: MessagingContext = {
    transport: createRequester({
      ...requesterSettings(options),
      ...transportOption(options.transport),
      baseUrl,
      auth: { kind: 'bearer', token },
    }),
    headerPrefix: resolveHeaderPrefix(options.headerPrefix, env),
    appUrl: appUrlSetting === undefined ? undefined : checkBaseUrl('appUrl', appUrlSetting),
  };
  return {
    enqueue: (request) => enqueue(context, request),
    enqueueJSON: (request) => enqueueJSON(context, request),
    send: (definition, payload, sendOptions) => send(context, definition, payload, sendOptions),
    urlGroups: {
      list: (listOptions) => listUrlGroups(context, listOptions),
      addEndpoints: (name, endpoints) => addEndpoints(context, name, endpoints),
      removeEndpoints: (name, endpoints) => removeEndpoints(context, name, endpoints),
    },
    workflowDlq: {
      list: (filter) => listWorkflowDlq(context, filter),
      iterate: (filter) => iterateWorkflowDlq(context, filter),
      retriggerFailureCallback: (dlqId, retriggerOptions) => retriggerFailureCallback(context, dlqId, retriggerOptions),
    },
    headerPrefix: context.headerPrefix,
  };
}

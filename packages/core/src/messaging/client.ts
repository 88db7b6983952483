import { DEV_CREDENTIALS, devServerUrl, nodeDevServerLocator, type DevOption, type DevServerLocator } from '../dev-mode';
import {
  checkBaseUrl,
  ENV_VARIABLES,
  type Environment,
  normalizeRegion,
  optionalSetting,
  settingsPresent,
  processEnvironment,
  regionalSetting,
  requiredSetting,
  resolveHeaderPrefix,
} from '../config';
import type { DestinationDefinition, PayloadOf } from '../contract';
import { createRequesterWhenConfigured, type HttpTransport } from '../http';
import type { ServiceConnection } from './connection';
import { checkTracing, type MessageTracing } from '../tracing/hooks';
import { requesterSettings, type SharedClientOptions } from '../http/requester-options';
import type { DlqWorkflowMessage, RetriggerResponse, UrlGroup } from '../schemas';
import type {
  BulkAction,
  DlqDeleteResult,
  DlqMessage,
  DlqRetryResult,
  FlowControlInfo,
  GlobalParallelism,
  LogEvent,
  Message,
  NotifyResult,
  Queue,
  RestartedRun,
  Schedule,
  SigningKeys,
  Waiter,
  WorkflowRun,
} from '../schemas/resources';
import { parseAnswer } from '../schemas/lazy';
import {
  deleteDlqMessage,
  deleteDlqMessages,
  getDlqMessage,
  iterateDlq,
  iterateWorkflowDlq,
  listDlq,
  listWorkflowDlq,
  retriggerFailureCallback,
  retryDlqMessage,
  retryDlqMessages,
  type DlqPage,
  type DlqSelection,
  type WorkflowDlqFilter,
  type WorkflowDlqPage,
} from './dlq';
import { signalOf, type DlqFilter, type LogFilter, type PageOptions } from './listing';
import {
  cancelMessage,
  cancelMessages,
  cancelMessagesInBackground,
  getBulkAction,
  getMessage,
  iterateLogs,
  listLogs,
  runMessageNow,
  type CancelResult,
  type CancelSelection,
  type LogPage,
} from './messages';
import {
  changeFlowControl,
  changeQueue,
  getFlowControl,
  getGlobalParallelism,
  getQueue,
  listFlowControl,
  listQueues,
  upsertQueue,
  type PinnedLimits,
  type QueueSettings,
  type UnpinnedLimits,
} from './queues';
import { changeSchedule, createSchedule, createScheduleJSON, getSchedule, listSchedules, type ScheduleRequest } from './schedules';
import {
  batch,
  batchJSON,
  enqueue,
  enqueueJSON,
  publish,
  publishJSON,
  send,
  type BatchItem,
  type BatchResult,
  type EnqueueRequest,
  type EnqueueResponse,
  type EnqueueResult,
  type PublishRequest,
  type SendOptions,
} from './sending';
import {
  addEndpoints,
  deleteUrlGroup,
  getUrlGroup,
  listUrlGroups,
  removeEndpoints,
  type EndpointRef,
  type NewEndpoint,
} from './url-groups';
import {
  cancelWorkflowRuns,
  deleteWorkflowDlqEntries,
  iterateWorkflowRuns,
  listWaiters,
  listWorkflowRuns,
  notifyWorkflowEvent,
  restartWorkflowRuns,
  type WorkflowRunFilter,
  type WorkflowRunPage,
} from './workflows';

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
   * The service region to send through (`eu-central-1` or `EU_CENTRAL_1`). Env: `MAILROOM_REGION`.
   * Its own variables (`MAILROOM_EU_CENTRAL_1_URL`, `..._TOKEN`) then win over the default ones.
   */
  region?: string;
  /**
   * Dev mode (env `MAILROOM_DEV=1`): send to `mailroom dev` on `http://127.0.0.1:8288` with its
   * documented credentials, starting one in this process (Node, with `@mailroom/dev-server`
   * installed) when none answers; `{ url }` for another port. Refused with `NODE_ENV=production` and
   * during `next build`. `appUrl` then defaults to `http://localhost:$PORT` (3000).
   */
  dev?: DevOption;
  /**
   * Sends the requests instead of `fetch`. On Node, `createUndiciTransport()` from
   * `@mailroom/core/undici` (needs the `undici` package) is several times faster than the global
   * fetch; leave it out on edge runtimes. Exclusive with `fetch`.
   */
  transport?: HttpTransport;
  /**
   * `openTelemetry()` from `@mailroom/core/tracing`: `send`, `publish`, `enqueue` and `batch` run in
   * a producer span, and the message carries its trace context to the handler. See docs/tracing.md.
   */
  tracing?: MessageTracing;
}

/** Options of a call that only reads or acts on one resource. */
export interface CallOptions {
  signal?: AbortSignal;
}

type JsonRequest<R> = Omit<R, 'body' | 'contentType'> & { body: unknown };

export interface MessagingClient {
  /** Enqueues on a queue: delivered in order, `parallelism` at a time (default one). */
  enqueue<const D extends string>(request: EnqueueRequest<D>): Promise<EnqueueResponse<D>>;
  enqueueJSON<const D extends string, T>(
    request: Omit<EnqueueRequest<D>, 'body' | 'contentType'> & { body: T },
  ): Promise<EnqueueResponse<D>>;
  /** Publishes without a queue: delivered as soon as due, concurrently with others. */
  publish<const D extends string>(request: PublishRequest<D>): Promise<EnqueueResponse<D>>;
  publishJSON<const D extends string, T>(
    request: Omit<PublishRequest<D>, 'body' | 'contentType'> & { body: T },
  ): Promise<EnqueueResponse<D>>;
  /** Several messages in one request; one result per item, an array for a URL-group item. */
  batch(items: readonly BatchItem[], options?: CallOptions): Promise<BatchResult[]>;
  batchJSON<T>(items: ReadonlyArray<Omit<BatchItem, 'body' | 'contentType'> & { body: T }>, options?: CallOptions): Promise<BatchResult[]>;
  /** Sends a payload to a typed destination (published; enqueued in order with `queue`), checked against its schema first. */
  send<D extends DestinationDefinition>(definition: D, payload: PayloadOf<D>, options?: SendOptions): Promise<EnqueueResult>;
  schedules: {
    /** Creates a schedule, or replaces the one named by `scheduleId`. */
    create(request: ScheduleRequest): Promise<{ scheduleId: string }>;
    createJSON(request: JsonRequest<ScheduleRequest>): Promise<{ scheduleId: string }>;
    get(scheduleId: string, options?: CallOptions): Promise<Schedule>;
    list(options?: CallOptions): Promise<Schedule[]>;
    delete(scheduleId: string, options?: CallOptions): Promise<void>;
    pause(scheduleId: string, options?: CallOptions): Promise<void>;
    resume(scheduleId: string, options?: CallOptions): Promise<void>;
  };
  queues: {
    /** Creates or updates a queue. */
    upsert(settings: QueueSettings): Promise<void>;
    get(name: string, options?: CallOptions): Promise<Queue>;
    list(options?: CallOptions): Promise<Queue[]>;
    delete(name: string, options?: CallOptions): Promise<void>;
    /** Holds deliveries (messages are still accepted) until `resume`. */
    pause(name: string, options?: CallOptions): Promise<void>;
    resume(name: string, options?: CallOptions): Promise<void>;
  };
  messages: {
    /** A message not yet delivered. */
    get(messageId: string, options?: CallOptions): Promise<Message>;
    /**
     * Attempts a waiting message now (the service's "retry now"): one delayed, a workflow step asleep,
     * or one waiting out a retry's backoff. Its retry count stays. Not for messages in a queue.
     */
    runNow(messageId: string, options?: CallOptions): Promise<void>;
    /** Stops every pending delivery of one message. */
    cancel(messageId: string, options?: CallOptions): Promise<CancelResult>;
    /** Cancels the listed messages, those matching a filter, or all (`{ all: true }`). */
    cancelMany(selection: CancelSelection, options?: CallOptions): Promise<CancelResult>;
    /** The same cancel, run in the background as a bulk action: follow it with `bulkActions.get(actionId)`. */
    cancelInBackground(selection: CancelSelection, options?: CallOptions): Promise<{ actionId: string }>;
  };
  /** Bulk actions started in the background (`messages.cancelInBackground`). */
  bulkActions: {
    get(actionId: string, options?: CallOptions): Promise<BulkAction>;
  };
  /** The message DLQ: every message that exhausted its retries. */
  dlq: {
    list(filter?: DlqFilter & PageOptions): Promise<DlqPage>;
    iterate(filter?: DlqFilter & PageOptions): AsyncGenerator<DlqMessage, void, undefined>;
    get(dlqId: string, options?: CallOptions): Promise<DlqMessage>;
    delete(dlqId: string, options?: CallOptions): Promise<void>;
    deleteMany(selection: DlqSelection, options?: CallOptions): Promise<DlqDeleteResult>;
    /** Sends the entry's message again, under a new id. */
    retry(dlqId: string, options?: CallOptions): Promise<{ messageId: string }>;
    retryMany(selection: DlqSelection, options?: CallOptions): Promise<DlqRetryResult>;
  };
  /** Every state change of every message, newest first. */
  logs: {
    list(filter?: LogFilter & PageOptions): Promise<LogPage>;
    iterate(filter?: LogFilter & PageOptions): AsyncGenerator<LogEvent, void, undefined>;
  };
  urlGroups: {
    list(options?: CallOptions): Promise<UrlGroup[]>;
    get(name: string, options?: CallOptions): Promise<UrlGroup>;
    delete(name: string, options?: CallOptions): Promise<void>;
    addEndpoints(name: string, endpoints: readonly NewEndpoint[]): Promise<void>;
    removeEndpoints(name: string, endpoints: readonly EndpointRef[]): Promise<void>;
  };
  flowControl: {
    get(key: string, options?: CallOptions): Promise<FlowControlInfo>;
    list(options?: CallOptions): Promise<FlowControlInfo[]>;
    /** Holds the key's messages (accepted, not delivered) until `resume`. */
    pause(key: string, options?: CallOptions): Promise<void>;
    resume(key: string, options?: CallOptions): Promise<void>;
    /** Overrides the limits messages carry, until unpinned. */
    pin(key: string, limits: PinnedLimits, options?: CallOptions): Promise<void>;
    unpin(key: string, limits: UnpinnedLimits, options?: CallOptions): Promise<void>;
    /** Starts a new rate period now. */
    resetRate(key: string, options?: CallOptions): Promise<void>;
    /** The account's parallelism limit and the attempts running now. */
    globalParallelism(options?: CallOptions): Promise<GlobalParallelism>;
  };
  signingKeys: {
    get(options?: CallOptions): Promise<SigningKeys>;
    /** Makes the next key current and a new next key; receivers that know both keep verifying. */
    rotate(options?: CallOptions): Promise<SigningKeys>;
  };
  workflowDlq: {
    list(filter?: WorkflowDlqFilter): Promise<WorkflowDlqPage>;
    iterate(filter?: WorkflowDlqFilter): AsyncGenerator<DlqWorkflowMessage, void, undefined>;
    retriggerFailureCallback(dlqId: string, options?: CallOptions): Promise<RetriggerResponse>;
    /** Failed runs go on from their failed step, their history kept. */
    resume(dlqIds: string | readonly string[], options?: CallOptions): Promise<RestartedRun[]>;
    /** Failed runs start over, each as a new run with the same first body. */
    restart(dlqIds: string | readonly string[], options?: CallOptions): Promise<RestartedRun[]>;
    delete(dlqIds: string | readonly string[], options?: CallOptions): Promise<{ deleted: number }>;
  };
  /** Workflow runs (the Workflow SDK's): their logs, cancelling them, and the events they wait for. */
  workflows: {
    /** Runs, newest first, with their state and steps. */
    logs(filter?: WorkflowRunFilter): Promise<WorkflowRunPage>;
    iterate(filter?: WorkflowRunFilter): AsyncGenerator<WorkflowRun, void, undefined>;
    /** Cancels runs still going, with their pending steps. */
    cancel(runIds: string | readonly string[], options?: CallOptions): Promise<{ cancelled: number }>;
    /** Gives `data` to every run waiting for `eventId` (of one run with `runId`). */
    notify(eventId: string, data?: unknown, options?: CallOptions & { runId?: string }): Promise<NotifyResult[]>;
    /** The runs waiting for `eventId`. */
    waiters(eventId: string, options?: CallOptions): Promise<Waiter[]>;
  };
  /** The resolved header prefix, e.g. for building receivers with the same setting. */
  readonly headerPrefix: string;
  /** The region the client sends from (`EU_CENTRAL_1`), when one is set. */
  readonly region: string | undefined;
}

// The locator of a dev-mode client's options, kept off the public options type.
const devServers = new WeakMap<MessagingClientOptions, DevServerLocator>();

/** The options of a dev-mode client: the dev server's URL and token, the app on $PORT. */
function devModeOptions(options: MessagingClientOptions, url: string, env: Environment): MessagingClientOptions {
  const port = env.PORT?.trim() || '3000';
  const given = options.appUrl ?? env[ENV_VARIABLES.appUrl];
  const appUrl = given ?? `http://localhost:${port}`;
  if (given === undefined) announceGuessedAppUrl(appUrl);
  const resolved: MessagingClientOptions = {
    ...options,
    dev: false,
    baseUrl: url,
    token: DEV_CREDENTIALS.token,
    appUrl,
    env,
  };
  devServers.set(resolved, nodeDevServerLocator(url));
  return resolved;
}

let guessAnnounced = false;

/** Says once per process where `send(def, ...)` delivers when dev mode had to guess it, so a wrong guess is not silent. */
function announceGuessedAppUrl(appUrl: string): void {
  if (guessAnnounced) return;
  guessAnnounced = true;
  console.log(
    `[mailroom] dev mode: send(destination, ...) delivers to ${appUrl} (from $PORT, else 3000); set ${ENV_VARIABLES.appUrl} or appUrl if your app listens elsewhere`,
  );
}

/**
 * A client of the messaging interface. Every setting falls back to its `MAILROOM_*` variable.
 *
 * @example
 * const client = createMessagingClient({ baseUrl: 'http://127.0.0.1:8288', token: 'dev-token' });
 * await client.enqueueJSON({ queue: 'emails', destination: 'https://app.test/api/send', body: { to: 'a@b.c' }, retries: 3 });
 */
export function createMessagingClient(options: MessagingClientOptions = {}): MessagingClient {
  return buildMessagingClient(options, false);
}

/**
 * {@link createMessagingClient}, reading its URL and token now: a missing one throws the
 * `ConfigError` at once. For frameworks that check their wiring at start-up (NestJS).
 */
export function createMessagingClientNow(options: MessagingClientOptions = {}): MessagingClient {
  return buildMessagingClient(options, true);
}

function buildMessagingClient(options: MessagingClientOptions, now: boolean): MessagingClient {
  const env = options.env ?? processEnvironment();
  const devUrl = devServerUrl(options.dev, env);
  if (devUrl !== undefined) return buildMessagingClient(devModeOptions(options, devUrl, env), now);
  const region = normalizeRegion(optionalSetting('region', options.region, env));
  // A region's own variables (MAILROOM_EU_CENTRAL_1_URL) win over the default ones; code wins over both.
  const baseUrlSetting = options.baseUrl ?? regionalSetting('baseUrl', region, env);
  const tokenSetting = options.token ?? regionalSetting('token', region, env);
  const appUrlSetting = optionalSetting('appUrl', options.appUrl, env);
  const connection: ServiceConnection = {
    // Read now when both are there; a missing one is required on first use (see createRequesterWhenConfigured).
    requester: createRequesterWhenConfigured(
      () => ({
        ...requesterSettings(options),
        ...transportOption(options.transport),
        ...(devServers.has(options) ? { devServer: devServers.get(options)! } : {}),
        baseUrl: checkBaseUrl('baseUrl', requiredSetting('baseUrl', baseUrlSetting, env, 'It is the messaging base URL of the service.')),
        auth: { kind: 'bearer', token: requiredSetting('token', tokenSetting, env, 'It is the messaging token of the service.') },
      }),
      now || settingsPresent(env, ['baseUrl', baseUrlSetting], ['token', tokenSetting]),
    ),
    headerPrefix: resolveHeaderPrefix(options.headerPrefix, env),
    appUrl: appUrlSetting === undefined ? undefined : checkBaseUrl('appUrl', appUrlSetting),
    tracing: checkTracing(options.tracing, 'tracing'),
  };
  const keys = (method: 'GET' | 'POST', path: string[], call?: CallOptions) =>
    connection.requester.requestJson({ method, path, retrySafe: method === 'GET', ...signalOf(call) }, (value, url) =>
      parseAnswer('signingKeys', value, url),
    );
  return {
    enqueue: (request) => enqueue(connection, request),
    enqueueJSON: (request) => enqueueJSON(connection, request),
    publish: (request) => publish(connection, request),
    publishJSON: (request) => publishJSON(connection, request),
    batch: (items, call) => batch(connection, items, call),
    batchJSON: (items, call) => batchJSON(connection, items, call),
    send: (definition, payload, sendOptions) => send(connection, definition, payload, sendOptions),
    schedules: {
      create: (request) => createSchedule(connection, request),
      createJSON: (request) => createScheduleJSON(connection, request),
      get: (id, call) => getSchedule(connection, id, call),
      list: (call) => listSchedules(connection, call),
      delete: (id, call) => changeSchedule(connection, 'delete', id, call),
      pause: (id, call) => changeSchedule(connection, 'pause', id, call),
      resume: (id, call) => changeSchedule(connection, 'resume', id, call),
    },
    queues: {
      upsert: (settings) => upsertQueue(connection, settings),
      get: (name, call) => getQueue(connection, name, call),
      list: (call) => listQueues(connection, call),
      delete: (name, call) => changeQueue(connection, 'delete', name, call),
      pause: (name, call) => changeQueue(connection, 'pause', name, call),
      resume: (name, call) => changeQueue(connection, 'resume', name, call),
    },
    messages: {
      get: (id, call) => getMessage(connection, id, call),
      runNow: (id, call) => runMessageNow(connection, id, call),
      cancel: (id, call) => cancelMessage(connection, id, call),
      cancelMany: (selection, call) => cancelMessages(connection, selection, call),
      cancelInBackground: (selection, call) => cancelMessagesInBackground(connection, selection, call),
    },
    bulkActions: {
      get: (id, call) => getBulkAction(connection, id, call),
    },
    dlq: {
      list: (filter) => listDlq(connection, filter),
      iterate: (filter) => iterateDlq(connection, filter),
      get: (id, call) => getDlqMessage(connection, id, call),
      delete: (id, call) => deleteDlqMessage(connection, id, call),
      deleteMany: (selection, call) => deleteDlqMessages(connection, selection, call),
      retry: (id, call) => retryDlqMessage(connection, id, call),
      retryMany: (selection, call) => retryDlqMessages(connection, selection, call),
    },
    logs: {
      list: (filter) => listLogs(connection, filter),
      iterate: (filter) => iterateLogs(connection, filter),
    },
    urlGroups: {
      list: (call) => listUrlGroups(connection, call),
      get: (name, call) => getUrlGroup(connection, name, call),
      delete: (name, call) => deleteUrlGroup(connection, name, call),
      addEndpoints: (name, endpoints) => addEndpoints(connection, name, endpoints),
      removeEndpoints: (name, endpoints) => removeEndpoints(connection, name, endpoints),
    },
    flowControl: {
      get: (key, call) => getFlowControl(connection, key, call),
      list: (call) => listFlowControl(connection, call),
      pause: (key, call) => changeFlowControl(connection, 'pause', key, {}, call),
      resume: (key, call) => changeFlowControl(connection, 'resume', key, {}, call),
      pin: (key, limits, call) => changeFlowControl(connection, 'pin', key, limits, call),
      unpin: (key, limits, call) => changeFlowControl(connection, 'unpin', key, limits, call),
      resetRate: (key, call) => changeFlowControl(connection, 'resetRate', key, {}, call),
      globalParallelism: (call) => getGlobalParallelism(connection, call),
    },
    signingKeys: {
      get: (call) => keys('GET', ['v2', 'keys'], call),
      rotate: (call) => keys('POST', ['v2', 'keys', 'rotate'], call),
    },
    workflowDlq: {
      list: (filter) => listWorkflowDlq(connection, filter),
      iterate: (filter) => iterateWorkflowDlq(connection, filter),
      retriggerFailureCallback: (dlqId, retriggerOptions) => retriggerFailureCallback(connection, dlqId, retriggerOptions),
      resume: (dlqIds, call) => restartWorkflowRuns(connection, 'resume', dlqIds, call),
      restart: (dlqIds, call) => restartWorkflowRuns(connection, 'restart', dlqIds, call),
      delete: (dlqIds, call) => deleteWorkflowDlqEntries(connection, dlqIds, call),
    },
    workflows: {
      logs: (filter) => listWorkflowRuns(connection, filter),
      iterate: (filter) => iterateWorkflowRuns(connection, filter),
      cancel: (runIds, call) => cancelWorkflowRuns(connection, runIds, call),
      notify: (eventId, data, call) => notifyWorkflowEvent(connection, eventId, data, call),
      waiters: (eventId, call) => listWaiters(connection, eventId, call),
    },
    headerPrefix: connection.headerPrefix,
    region,
  };
}

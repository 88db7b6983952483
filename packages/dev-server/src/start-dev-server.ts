import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { keysInForce, loadCredentials } from './credentials';
import { DEFAULT_APP_URL, type DevServerOptions, type EngineConfig, PLANS, type PlanName, resolveOptions } from './settings';
import { createEventBus, createLogger, type DevServerEventListener, type EventBus } from './events';
import { CONSOLE_PATH, createRequestGuard } from './http/console';
import { createHttpServer } from './http/node-server';
import { allRoutes } from './http/routes';
import { MANAGEMENT_BASE_PATH } from './management/routes';
import { closeService, createService, recoverStorage, type Service, type ServiceParts, startService, secretValues } from './service';
import type { FaultInput } from './state/records';
import { openStore, type Store } from './state/store';

/** A running dev server. */
export interface DevServer {
  /** The messaging `{base_url}`: `/v2/...` is appended to it. */
  url: string;
  /** The dev console, with the token in its fragment: open it in a browser. */
  consoleUrl: string;
  /** The management `{mgmt_base_url}`, already ending in `/v2`. */
  managementUrl: string;
  token: string;
  readOnlyToken: string;
  managementUser: string;
  managementPassword: string;
  /** The key deliveries are signed with now (it changes when the keys are rotated). */
  readonly currentSigningKey: string;
  readonly nextSigningKey: string;
  /** The region deliveries name in `<Prefix>-Region`, when one is set. */
  region: string | undefined;
  headerPrefix: string;
  issuer: string;
  plan: PlanName;
  port: number;
  dataDir: string | undefined;
  /** Where a span per attempt of a traced message is exported (OTLP/HTTP), when it is. */
  otlpTracesUrl: string | undefined;
  /** Calls `listener` with every event until the returned function is called. */
  subscribe(listener: DevServerEventListener): () => void;
  /** Stops listening and delivering, and makes the state durable. Pending messages resume on the next start. */
  close(): Promise<void>;
}

/**
 * Starts the dev server: both interfaces on one port, real signed deliveries, state in memory or in
 * `dataDir`. Pending deliveries of an earlier run with the same `dataDir` resume.
 *
 * @example
 * const server = await startDevServer({ port: 0, timeScale: 0.001, log: 'silent' });
 * const client = createMessagingClient({ baseUrl: server.url, token: server.token });
 * await client.enqueueJSON({ queue: 'q', destination: 'http://127.0.0.1:3000/hook', body: { hi: 1 } });
 * await server.close();
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const resolved = resolveOptions(options);
  const events = createEventBus();
  const logger = createLogger(resolved.log);
  if (logger) events.subscribe(logger);
  if (resolved.onEvent) events.subscribe(resolved.onEvent);

  const plan = PLANS[resolved.plan];
  const credentials = await loadCredentials(resolved.dataDir, resolved.now);
  const config: EngineConfig = {
    headerPrefix: resolved.headerPrefix,
    issuer: resolved.issuer,
    currentSigningKey: credentials.currentSigningKey,
    timeScale: resolved.timeScale,
    maxInFlight: plan.max_global_parallelism,
    planTimeoutSeconds: plan.timeout,
    maxMessageSize: plan.max_message_size,
    region: resolved.region,
    now: resolved.now,
    unrefTimers: resolved.exitWhenIdle,
  };
  const store = await openStore({
    dataDir: resolved.dataDir,
    now: resolved.now,
    dlqRetentionMs: plan.max_dlq_retention_time_milis,
    onCompactionError: (error) => events.emit({ type: 'error', message: `journal compaction failed: ${String(error)}` }),
    repairJournal: resolved.repairJournal,
    // The service is wired by the time anything is written.
    onRefusing: (refusal) => {
      events.emit({ type: 'storage', state: 'refusing', reason: refusal.message.split(':')[0] ?? refusal.message });
      recoverStorage(service, parts).catch((error: unknown) =>
        events.emit({ type: 'error', message: `could not recover from the failed write: ${String(error)}` }),
      );
    },
    onReloadError: (error) => events.emit({ type: 'error', message: `could not reload the journal: ${String(error)}` }),
    onRecovered: ({ file, tornBytesDropped, damagedRecordsSkipped, damagedBytesSkipped, damagedFile }) =>
      events.emit({
        type: 'journal-recovered',
        file: file ?? '',
        tornBytesDropped,
        damagedRecordsSkipped,
        damagedBytesSkipped,
        ...(damagedFile ? { damagedFile } : {}),
      }),
  });
  // Loaded only when asked for: the OpenTelemetry SDK is no cost to a server that exports nothing.
  const spans = resolved.otlpTracesUrl ? (await import('./attempt-spans')).startAttemptSpans(resolved.otlpTracesUrl) : undefined;
  const parts: ServiceParts = { store, events, credentials, plan, config, ...(spans ? { engine: { spans } } : {}) };
  const service = createService(parts);
  try {
    await setStartingFaults(service, resolved.faults);
  } catch (error) {
    await store.close();
    throw error;
  }
  const keysFor = () => {
    const { current, next } = keysInForce(store.state, credentials);
    return { currentSigningKey: current, nextSigningKey: next };
  };
  const publicUrl = (): string => `http://${urlHost(resolved.host)}:${(server.address() as AddressInfo).port}`;
  const server = createHttpServer({
    routes: allRoutes(service),
    credentials,
    readOnly: { secrets: () => secretValues(service) },
    refuseIfThrottled: () => service.faults.refuseIfThrottled(),
    events,
    guard: createRequestGuard(() => (server.address() as AddressInfo | null)?.port ?? resolved.port, resolved.allowedHosts),
    consoleSettings: () => ({
      url: publicUrl(),
      headerPrefix: resolved.headerPrefix,
      issuer: resolved.issuer,
      plan: resolved.plan,
      region: resolved.region ?? null,
      timeScale: resolved.timeScale,
      dataDir: resolved.dataDir !== undefined,
    }),
    mcp: {
      headerPrefix: resolved.headerPrefix,
      // The app's own URL is the command line's to say; the rest is this server's.
      environment: () =>
        environmentLines({
          url: publicUrl(),
          token: credentials.token,
          ...keysFor(),
          managementUrl: `${publicUrl()}${MANAGEMENT_BASE_PATH}`,
          managementUser: credentials.managementUser,
          managementPassword: credentials.managementPassword,
          headerPrefix: resolved.headerPrefix,
          issuer: resolved.issuer,
        }).filter((line) => !line.startsWith('MAILROOM_APP_URL=')),
    },
  });
  try {
    await listen(server, resolved.port, resolved.host);
  } catch (error) {
    await store.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = publicUrl();
  const managementUrl = `${url}${MANAGEMENT_BASE_PATH}`;
  startService(service);
  const releaseWhenIdle = resolved.exitWhenIdle ? holdWhilePending(server, store, events) : undefined;
  events.emit({ type: 'listening', url, managementUrl, dataDir: resolved.dataDir, recovered: store.state.pending.size });

  let closing: Promise<void> | undefined;
  return {
    url,
    consoleUrl: `${url}${CONSOLE_PATH}#token=${encodeURIComponent(credentials.token)}`,
    managementUrl,
    token: credentials.token,
    readOnlyToken: credentials.readOnlyToken,
    managementUser: credentials.managementUser,
    managementPassword: credentials.managementPassword,
    get currentSigningKey() {
      return keysInForce(store.state, credentials).current;
    },
    get nextSigningKey() {
      return keysInForce(store.state, credentials).next;
    },
    region: resolved.region,
    headerPrefix: resolved.headerPrefix,
    issuer: resolved.issuer,
    plan: resolved.plan,
    port,
    dataDir: resolved.dataDir,
    otlpTracesUrl: resolved.otlpTracesUrl,
    subscribe: (listener) => events.subscribe(listener),
    close() {
      // HTTP first (no new acceptance), then the engine (no new attempt), then the journal.
      releaseWhenIdle?.();
      // The spans still buffered go out before close resolves.
      closing ??= stopServer(server)
        .then(() => closeService(service))
        .then(() => spans?.close());
      return closing;
    },
  };
}

/**
 * With `exitWhenIdle`: the server stops holding the process open, and one idle interval holds it
 * instead, exactly while a message is pending (checked after every event). Answers its release.
 */
function holdWhilePending(server: Server, store: Store, events: EventBus): () => void {
  server.unref();
  // A client's keep-alive connection must not hold the process either; a request in flight does.
  server.on('connection', (socket) => socket.unref());
  const hold = setInterval(() => {}, 1 << 30);
  const update = (): void => {
    if (store.state.pending.size > 0) hold.ref();
    else hold.unref();
  };
  update();
  const unsubscribe = events.subscribe(update);
  return () => {
    unsubscribe();
    clearInterval(hold);
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stopServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    // A client holding a request open must not keep the server alive forever.
    const force = setTimeout(() => server.closeAllConnections(), 1000);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The host as it appears in a URL: a wildcard address becomes loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** The faults asked for at start, each unless the same one is already in force (kept by `dataDir`). */
async function setStartingFaults(service: Service, faults: readonly FaultInput[]): Promise<void> {
  for (const input of faults) {
    let set: ReturnType<Service['faults']['set']>;
    try {
      set = service.faults.set(input, { unlessInForce: true });
    } catch (error) {
      throw new TypeError(`faults: ${error instanceof Error ? error.message : String(error)}`);
    }
    await set.committed;
  }
}

/**
 * The `MAILROOM_*` variables an app needs to talk to this server, one `NAME=value` per line, ready to
 * paste into a `.env`: with them alone `client.send(def, payload)` works, `MAILROOM_APP_URL` included.
 *
 * @example environmentLines(server, 'http://localhost:3000').join('\n')
 */
export function environmentLines(
  // What an app's `.env` is made from: a started server's addresses, token and keys.
  server: Pick<
    DevServer,
    | 'url'
    | 'token'
    | 'currentSigningKey'
    | 'nextSigningKey'
    | 'managementUrl'
    | 'managementUser'
    | 'managementPassword'
    | 'headerPrefix'
    | 'issuer'
  >,
  appUrl: string = DEFAULT_APP_URL,
): string[] {
  return [
    `MAILROOM_APP_URL=${appUrl}`,
    `MAILROOM_URL=${server.url}`,
    `MAILROOM_TOKEN=${server.token}`,
    `MAILROOM_CURRENT_SIGNING_KEY=${server.currentSigningKey}`,
    `MAILROOM_NEXT_SIGNING_KEY=${server.nextSigningKey}`,
    `MAILROOM_MANAGEMENT_URL=${server.managementUrl}`,
    `MAILROOM_MANAGEMENT_USER=${server.managementUser}`,
    `MAILROOM_MANAGEMENT_PASSWORD=${server.managementPassword}`,
    `MAILROOM_HEADER_PREFIX=${server.headerPrefix}`,
    `MAILROOM_ISSUER=${server.issuer}`,
  ];
}

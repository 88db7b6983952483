import { createManagementClient, createMessagingClient, createVerifier, type ManagementClient, type MessagingClient } from '@mailroom/core';
import { startDevServer, type DevServer, type DevServerEvent, type DevServerOptions } from '../../src/index';
import { afterEach, beforeEach } from 'vitest';
import { startDestination, type TestDestination } from './destination';
import { waitUntil } from './wait';

/** A dev server for one test, with core's real clients and every event recorded. */
export interface TestServer {
  server: DevServer;
  messaging: MessagingClient;
  /** A client holding the read-only token. */
  readOnly: MessagingClient;
  management: ManagementClient;
  events: DevServerEvent[];
  /** Waits until at least `count` recorded events match. */
  waitForEvents<T extends DevServerEvent['type']>(
    type: T,
    count: number,
    filter?: (event: Extract<DevServerEvent, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Array<Extract<DevServerEvent, { type: T }>>>;
  /** Verifies a delivery's signature for `url` with the server's printed keys. */
  verify(signature: unknown, body: Buffer | string, url: string): Promise<unknown>;
  close(): Promise<void>;
}

/** Starts a dev server on port 0 with a small time scale and silent logs. */
export async function startTestServer(options: DevServerOptions = {}): Promise<TestServer> {
  const events: DevServerEvent[] = [];
  // The prefix is explicit: a MAILROOM_HEADER_PREFIX in the developer's shell must not change the tests.
  const server = await startDevServer({
    port: 0,
    timeScale: 0.001,
    log: 'silent',
    headerPrefix: 'Service',
    ...options,
    onEvent: (event) => events.push(event),
  });
  const env = {};
  // Client retries off: a test must see each answer exactly as the server gave it.
  const messaging = createMessagingClient({
    baseUrl: server.url,
    token: server.token,
    headerPrefix: server.headerPrefix,
    retry: false,
    env,
  });
  const readOnly = createMessagingClient({
    baseUrl: server.url,
    token: server.readOnlyToken,
    headerPrefix: server.headerPrefix,
    retry: false,
    env,
  });
  const management = createManagementClient({
    baseUrl: server.managementUrl,
    user: server.managementUser,
    password: server.managementPassword,
    retry: false,
    env,
  });
  // The verifier reads the server's clock: a test that moves the clock signs tokens in its future.
  const verifier = createVerifier({
    currentSigningKey: server.currentSigningKey,
    nextSigningKey: server.nextSigningKey,
    issuer: server.issuer,
    ...(options.now ? { now: options.now } : {}),
  });
  const matching = <T extends DevServerEvent['type']>(type: T, filter?: (event: Extract<DevServerEvent, { type: T }>) => boolean) =>
    events.filter(
      (event): event is Extract<DevServerEvent, { type: T }> =>
        event.type === type && (!filter || filter(event as Extract<DevServerEvent, { type: T }>)),
    );
  return {
    server,
    messaging,
    readOnly,
    management,
    events,
    async waitForEvents(type, count, filter, timeoutMs = 20_000) {
      await waitUntil(
        () => matching(type, filter).length >= count,
        () => `${count} "${type}" event(s), saw: ${events.map((event) => event.type).join(', ')}`,
        timeoutMs,
      );
      return matching(type, filter);
    },
    verify: (signature, body, url) => verifier.verify({ signature, rawBody: typeof body === 'string' ? body : new Uint8Array(body), url }),
    close: () => server.close(),
  };
}

/** The running dev server and destination of the current test; see {@link useTestServer}. */
export let t: TestServer;
export let destination: TestDestination;

/**
 * Gives every test of the calling file a fresh dev server (`t`) and destination, closed after it:
 * import `t` and `destination` from this module next to this call (live bindings follow each test).
 *
 * @example useTestServer({ plan: 'paid' });
 */
export function useTestServer(options: DevServerOptions = {}): void {
  beforeEach(async () => {
    t = await startTestServer(options);
    destination = await startDestination();
  });
  afterEach(async () => {
    await t.close();
    await destination.close();
  });
}

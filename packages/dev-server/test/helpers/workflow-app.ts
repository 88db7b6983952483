import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as QStashClient, Receiver } from '@upstash/qstash';
import { Client as WorkflowClient, serve, type RouteFunction, type WorkflowServeOptions } from '@upstash/workflow';
import { afterEach, beforeEach } from 'vitest';
import type { DevServerOptions } from '../../src/index';
import { startTestServer, type TestServer } from './test-server';

/**
 * The vendor's Workflow SDK, unchanged, served by a plain Node app (its generic `serve`, Node request
 * -> Web Request -> the SDK's handler), against a dev server with the service's prefix and issuer.
 */
export interface WorkflowApp {
  dev: TestServer;
  /** The app's base URL. */
  url: string;
  /** Serves `route` at `path` and answers its URL. */
  workflow<T>(path: string, route: RouteFunction<T, unknown>, options?: Pick<WorkflowServeOptions<T>, 'failureFunction'>): string;
  /** The SDK's own client, bound to the dev server with the full token. */
  client(): WorkflowClient;
  /** Waits for the dev server to say the run reached `state`. */
  runEnded(runId: string, state: string): Promise<unknown>;
  close(): Promise<void>;
}

async function startWorkflowApp(options: DevServerOptions = {}): Promise<WorkflowApp> {
  const dev = await startTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash', timeScale: 0.001, ...options });
  const routes = new Map<string, (request: Request) => Promise<Response>>();
  let url = '';
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const handler = routes.get(req.url?.split('?')[0] ?? '');
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = Buffer.concat(chunks);
    const response = await handler(new Request(`${url}${req.url}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
  const app: Server = createServer((req, res) => void forward(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  return {
    dev,
    url,
    workflow(path, route, serveOptions = {}) {
      const { handler } = serve(route, {
        qstashClient: new QStashClient({ baseUrl: dev.server.url, token: dev.server.token }),
        receiver: new Receiver({ currentSigningKey: dev.server.currentSigningKey, nextSigningKey: dev.server.nextSigningKey }),
        url: `${url}${path}`,
        disableTelemetry: true,
        ...serveOptions,
      });
      routes.set(path, handler);
      return `${url}${path}`;
    },
    client: () => new WorkflowClient({ baseUrl: dev.server.url, token: dev.server.token }),
    runEnded: (runId, state) => dev.waitForEvents('workflow-run', 1, (event) => event.runId === runId && event.state === state, 20_000),
    async close() {
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
      await dev.close();
    },
  };
}

/** The workflow app of the current test; see {@link useWorkflowApp}. */
export let w: WorkflowApp;

/** Gives every test of the calling file a fresh dev server and workflow app (`w`), closed after it. */
export function useWorkflowApp(options: DevServerOptions = {}): void {
  beforeEach(async () => {
    w = await startWorkflowApp(options);
  });
  afterEach(async () => {
    await w.close();
  });
}

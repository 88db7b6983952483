import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '@mailroom/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestService, type TestService } from '../src';

// Node's fetch as the test file found it: the network, whatever a service does to the global one.
const networkFetch = globalThis.fetch;

const services: TestService[] = [];
async function start(options: Partial<Parameters<typeof createTestService>[0]> = {}): Promise<TestService> {
  const service = await createTestService({ app: () => new Response('ok'), ...options });
  services.push(service);
  return service;
}
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  expect(globalThis.fetch).toBe(networkFetch);
});

/** The requests undici made while `run` ran (every network fetch announces itself on this channel). */
async function undiciRequests(run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (message: unknown) => {
    const { request } = message as { request: { origin: string; path: string } };
    seen.push(`${request.origin}${request.path}`);
  };
  diagnostics.subscribe('undici:request:create', listener);
  try {
    await run();
  } finally {
    diagnostics.unsubscribe('undici:request:create', listener);
  }
  return seen;
}

/** What a caller of fetch sees of an answer, without the connection's own headers. */
async function seen(response: Response) {
  const headers = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
  return { status: response.status, headers, body: await response.text(), url: response.url };
}

type Call = (url: string, token: string) => [string | URL | Request, RequestInit?];
const CALLS: Record<string, Call> = {
  'a list (GET)': (url, token) => [`${url}/v2/queues`, { headers: { authorization: `Bearer ${token}` } }],
  'a wrong token': (url) => [`${url}/v2/queues`, { headers: { authorization: 'Bearer nope' } }],
  'an unknown message': (url, token) => [`${url}/v2/messages/msg_unknown`, { headers: { Authorization: `Bearer ${token}` } }],
  'an unknown route': (url, token) => [`${url}/v2/nothing-here`, { headers: { authorization: `Bearer ${token}` } }],
  'a HEAD request': (url, token) => [`${url}/v2/queues`, { method: 'head', headers: { authorization: `Bearer ${token}` } }],
  'a JSON body with a query': (url, token) => [
    `${url}/v2/queues/?ignored=1`,
    {
      method: 'POST',
      headers: [
        ['authorization', `Bearer ${token}`],
        ['content-type', 'application/json'],
      ],
      body: '{"queueName":"q1"}',
    },
  ],
  'a Request with a stream body': (url, token) => [
    new Request(`${url}/v2/queues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Blob(['{"queueName":"q2","parallelism":2}']).stream(),
      duplex: 'half',
    } as RequestInit),
  ],
  bytes: (url, token) => [
    new URL(`${url}/v2/queues`),
    { method: 'POST', headers: new Headers({ authorization: `Bearer ${token}` }), body: new TextEncoder().encode('{"queueName":"q3"}') },
  ],
};

describe('Node fetch to the service, answered in-process', () => {
  it.each(Object.keys(CALLS))('answers %s as the port does, without a socket', async (name) => {
    const service = await start();
    const [input, init] = CALLS[name]!(service.url!, service.env.MAILROOM_TOKEN!);
    const again = (): [string | URL | Request, RequestInit?] => CALLS[name]!(service.url!, service.env.MAILROOM_TOKEN!);
    let inProcess: Awaited<ReturnType<typeof seen>> | undefined;
    const requests = await undiciRequests(async () => {
      inProcess = await seen(await fetch(input, init));
    });
    expect(requests).toEqual([]);
    const overNetwork = await seen(await networkFetch(...again()));
    expect(inProcess).toEqual(overNetwork);
  });

  it('refuses a sending call under a throttle fault, with the answer the port gives', async () => {
    const service = await start();
    await service.faults.throttle({ status: 429, retryAfter: 5 });
    const call = (): [string, RequestInit] => [
      `${service.url}/v2/publish/http://app.test/x`,
      { method: 'POST', headers: { authorization: `Bearer ${service.env.MAILROOM_TOKEN}` }, body: 'x' },
    ];
    const inProcess = await seen(await fetch(...call()));
    expect(inProcess.status).toBe(429);
    expect(inProcess.headers['retry-after']).toBe('5');
    expect(inProcess).toEqual(await seen(await networkFetch(...call())));
  });

  it('publishes through fetch, and the app gets the message', async () => {
    const service = await start();
    const response = await fetch(`${service.url}/v2/publish/http://app.test/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.env.MAILROOM_TOKEN}`, 'content-type': 'text/plain' },
      body: 'order o-1',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ messageId: expect.any(String) });
    await service.runUntilIdle();
    expect(service.deliveries('/orders').map((attempt) => attempt.body)).toEqual(['order o-1']);
  });

  it('rejects as fetch does when the signal is already aborted', async () => {
    const service = await start();
    const aborted = AbortSignal.abort();
    await expect(fetch(`${service.url}/v2/queues`, { signal: aborted })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('leaves every other request to the fetch it found, and the console to the socket', async () => {
    const other = http.createServer((req, res) => res.end(`other ${req.url}`));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const service = await start();
      const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v2/queues`;
      let body = '';
      const requests = await undiciRequests(async () => {
        body = await (await fetch(otherUrl)).text();
        await (await fetch(`${service.url}/console/`)).text();
      });
      expect(body).toBe('other /v2/queues');
      expect(requests).toEqual([otherUrl, `${service.url}/console/`]);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('serves several services at once, and restores the fetch it found when the last one closes', async () => {
    const first = await start();
    const second = await start();
    expect(globalThis.fetch).not.toBe(networkFetch);
    await first.close();
    const answer = await fetch(`${second.url}/v2/queues`, { headers: { authorization: `Bearer ${second.env.MAILROOM_TOKEN}` } });
    expect(answer.status).toBe(200);
    await second.close();
    expect(globalThis.fetch).toBe(networkFetch);
  });

  it('keeps a mock library that wrapped fetch after it, passing its calls on to the network once closed', async () => {
    const service = await start();
    const ours = globalThis.fetch;
    const calls: string[] = [];
    const mock = ((input: string | URL | Request, init?: RequestInit) => {
      calls.push(String(input));
      return ours(input, init);
    }) as typeof fetch;
    globalThis.fetch = mock;
    try {
      const url = service.url!;
      await service.close();
      expect(globalThis.fetch).toBe(mock);
      // The service is gone: the call goes to the network, and finds nothing there.
      await expect(fetch(`${url}/v2/queues`)).rejects.toThrow(TypeError);
      expect(calls).toEqual([`${url}/v2/queues`]);
    } finally {
      globalThis.fetch = networkFetch;
    }
  });

  it("leaves fetch alone with globalFetch: 'network', or when not listening", async () => {
    const service = await start({ globalFetch: 'network' });
    expect(globalThis.fetch).toBe(networkFetch);
    const requests = await undiciRequests(() => fetch(`${service.url}/v2/queues`).then((response) => response.text()));
    expect(requests).toEqual([`${service.url}/v2/queues`]);
    await start({ listen: false });
    expect(globalThis.fetch).toBe(networkFetch);
  });

  it('refuses an unknown globalFetch setting, saying what it takes', async () => {
    await expect(createTestService({ app: () => new Response('ok'), globalFetch: 'mock' as never })).rejects.toThrow(ValidationError);
    await expect(createTestService({ app: () => new Response('ok'), globalFetch: 'mock' as never })).rejects.toThrow(
      /globalFetch.*"in-process" or "network"/,
    );
  });
});

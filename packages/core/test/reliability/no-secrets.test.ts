import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createManagementClient,
  createMessagingClient,
  createReceiver,
  createVerifier,
  type InboundRequest,
  type OutboundResponse,
  type ReceiverOptions,
} from '../../src';
import { sign } from '../../src/signature';
import { pipelineOf } from '../../src/adapter';
import { signRequest } from '../../src/testing';
import { startStubServer, type StubServer } from '../support/stub-server';
import { b64url, forgeToken, validClaims } from '../signature/forge-token';

// No log line, error message, `onError` report or HTTP answer may ever contain a signing key, the
// messaging token or the management password, on any failure path. Everything a failure produces is
// captured as text (errors through util.inspect, so causes, `attempts` and every other field are
// included) and searched for each secret, also in the encodings it travels in.

const CURRENT = 'sig_NoSecretsCurrent8f3K2mQ9xZ';
const NEXT = 'sig_NoSecretsNext5wB7nT1cR4vY';
const PADDED = ' sig_NoSecretsPadded9aA3 ';
const TOKEN = 'tok_NoSecretsMessaging2Lq8Vd';
const READ_ONLY_TOKEN = 'tok_NoSecretsReadOnly6Hj4Pe';
const USER = 'ops@example.com';
const PASSWORD = 'mgmt_NoSecretsPassword3Xs5';
const ATTACKER_KEY = 'sig_attacker_key';
const URL = 'https://app.example.com/api/hook';
const NOW = Date.UTC(2030, 0, 15, 12);

/** Each secret, and the other spellings it could leak in (without `sig_`, base64 of Basic credentials). */
const FORBIDDEN = [CURRENT, NEXT, PADDED.trim(), TOKEN, READ_ONLY_TOKEN, PASSWORD]
  .flatMap((secret) => [secret, secret.replace(/^(sig|tok|mgmt)_/, '')])
  .concat([Buffer.from(`${USER}:${PASSWORD}`).toString('base64'), b64url(CURRENT), b64url(NEXT)]);

/** Everything failures produced: console lines, onError reports, errors, HTTP answers. */
const seen: string[] = [];
const record = (label: string, value: unknown): void => {
  seen.push(`${label}: ${typeof value === 'string' ? value : inspect(value, { depth: 8, showHidden: false, breakLength: Infinity })}`);
};

beforeEach(() => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) =>
      record(`console.${method}`, args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 8 }))).join(' ')),
    );
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => {
  // The guard of the guard: the scenarios did produce output to search.
  expect(seen.length).toBeGreaterThan(50);
});

let searched = 0;

/** Searches everything recorded since the last search, so one leak fails only the case that made it. */
function expectNoSecrets(): void {
  const lines = seen.slice(searched);
  searched = seen.length;
  for (const line of lines) {
    for (const secret of FORBIDDEN) {
      if (line.includes(secret)) throw new Error(`a secret (${secret.slice(0, 6)}...) leaked in: ${line.slice(0, 300)}`);
    }
  }
}

async function captured(label: string, run: () => unknown): Promise<unknown> {
  try {
    const value = await run();
    record(`${label} (resolved)`, value);
    return value;
  } catch (error) {
    record(`${label} (threw)`, error);
    record(`${label} (message)`, (error as Error)?.message);
    record(`${label} (stack)`, (error as Error)?.stack);
    return error;
  }
}

const body = '{"orderId":"o1","total":3}';
const request = (signature: string | undefined, rawBody = body, headers: Record<string, string> = {}): InboundRequest => ({
  method: 'POST',
  url: '/api/hook',
  headers: { 'content-type': 'application/json', ...(signature !== undefined ? { 'service-signature': signature } : {}), ...headers },
  rawBody: new TextEncoder().encode(rawBody),
});

/** Tokens that fail each check; both keys are tried for most of them. */
async function hostileTokens(): Promise<Record<string, string | undefined>> {
  const at = (shiftSeconds: number) => () => NOW + shiftSeconds * 1000;
  return {
    'unknown key': await sign({ key: ATTACKER_KEY, url: URL, rawBody: body, now: at(0) }),
    'current key, other body': await sign({ key: CURRENT, url: URL, rawBody: `${body} `, now: at(0) }),
    'next key, expired': await sign({ key: NEXT, url: URL, rawBody: body, now: at(-3600) }),
    'current key, not yet valid': await sign({ key: CURRENT, url: URL, rawBody: body, now: at(3600) }),
    'current key, other URL': await sign({ key: CURRENT, url: 'https://elsewhere.example/x', rawBody: body, now: at(0) }),
    'current key, other issuer': await sign({ key: CURRENT, url: URL, rawBody: body, now: at(0), issuer: 'Upstash' }),
    'alg none': `${b64url('{"alg":"none"}')}.${b64url(JSON.stringify(validClaims()))}.`,
    'HS512 with the current key': forgeToken({ header: { alg: 'HS512', typ: 'JWT' }, key: CURRENT, hmac: 'sha512' }),
    'claims of the wrong types': forgeToken({ payload: { ...validClaims(), exp: '1700000300', iss: 7 }, key: CURRENT }),
    garbage: 'not.a.token',
    huge: 'A'.repeat(9000),
    missing: undefined,
  };
}

describe('receiving: no key in any refusal', () => {
  const base: ReceiverOptions = {
    currentSigningKey: CURRENT,
    nextSigningKey: NEXT,
    publicUrl: 'https://app.example.com',
    now: () => NOW,
    env: {},
  };

  for (const logging of ['onError', 'default console logging'] as const) {
    it(`bad signatures with both keys, through handle and fetch (${logging})`, async () => {
      const onError = vi.fn((error: unknown, context: unknown) => record('onError', [error, context]));
      const receiver = createReceiver({ ...base, ...(logging === 'onError' ? { onError } : {}) });
      const endpoint = receiver.message(() => 'handled');
      for (const [name, token] of Object.entries(await hostileTokens())) {
        const out = (await captured(`handle ${name}`, () => endpoint.handle(request(token)))) as OutboundResponse;
        expect(out.status, name).toBe(401);
        const response = (await captured(`fetch ${name}`, () =>
          endpoint.fetch(new Request(URL, { method: 'POST', headers: request(token).headers as Record<string, string>, body })),
        )) as Response;
        record(`fetch ${name} body`, await response.text());
        await captured(`receive ${name}`, () => pipelineOf(receiver).receive(request(token)));
        await captured(`receiveCallback ${name}`, () => pipelineOf(receiver).receiveCallback(request(token)));
      }
      if (logging === 'onError') expect(onError).toHaveBeenCalled();
      else expect(console.warn).toHaveBeenCalled();
      expectNoSecrets();
    });
  }

  it('valid signature, then the body, the schema or the handler fails', async () => {
    const receiver = createReceiver(base);
    const signed = await signRequest({
      url: URL,
      body: 'not json',
      key: CURRENT,
      now: () => NOW,
      contentType: 'application/json',
      env: {},
    });
    const inbound: InboundRequest = { method: 'POST', url: '/api/hook', headers: signed.headers, rawBody: signed.body };
    record('invalid JSON', await receiver.message(() => 'x').handle(inbound));
    const good = await signRequest({ url: URL, body: { orderId: 1 }, key: NEXT, now: () => NOW, env: {} });
    const goodInbound: InboundRequest = { method: 'POST', url: '/api/hook', headers: good.headers, rawBody: good.body };
    record(
      'handler throws',
      await receiver
        .message(() => {
          throw new Error('database down');
        })
        .handle(goodInbound),
    );
    record('callback with a non-callback body', await receiver.callback(() => 'x').handle(goodInbound));
    record('wrong method', await pipelineOf(receiver).handle({ ...goodInbound, method: 'GET' }));
    record('too large', await pipelineOf(createReceiver({ ...base, maxBodyBytes: 1 })).handle(goodInbound));
    expectNoSecrets();
  });

  it('a key with surrounding whitespace: the hint says so without showing it', async () => {
    // The receiver trims settings (an env file's stray newline); the verifier takes the key as given.
    const token = await sign({ key: ATTACKER_KEY, url: URL, rawBody: body, now: () => NOW });
    const error = await captured('padded key', () =>
      createVerifier({ currentSigningKey: PADDED, now: () => NOW }).verify({ signature: token, rawBody: body }),
    );
    expect((error as Error).message).toContain('whitespace');
    const receiver = createReceiver({
      currentSigningKey: PADDED,
      now: () => NOW,
      env: {},
      onError: (reported) => record('onError', reported),
    });
    record('padded key, receiver', await pipelineOf(receiver).handle(request(token)));
    expectNoSecrets();
  });

  it('no key configured: the 500 explains, and names variables, never values (other secrets in the environment)', async () => {
    const env = { MAILROOM_TOKEN: TOKEN, MAILROOM_MANAGEMENT_PASSWORD: PASSWORD };
    const receiver = createReceiver({ env });
    const token = await sign({ key: CURRENT, url: URL, rawBody: body, now: () => NOW });
    const out = (await captured('no key', () => pipelineOf(receiver).handle(request(token)))) as OutboundResponse;
    expect(out.status).toBe(500);
    expect(out.body).toContain('MAILROOM_CURRENT_SIGNING_KEY');
    await captured('assertConfigured', () => pipelineOf(receiver).assertConfigured());
    await captured('verifier without keys', () => createVerifier({ now: () => NOW }).verify({ signature: token, rawBody: body }));
    expectNoSecrets();
  });

  it('the verifier itself, both implementations, sync and async', async () => {
    const tokens = await hostileTokens();
    for (const implementation of ['node', 'webcrypto'] as const) {
      const verifier = createVerifier({ currentSigningKey: CURRENT, nextSigningKey: NEXT, now: () => NOW, implementation });
      for (const [name, token] of Object.entries(tokens)) {
        await captured(`${implementation} ${name}`, () => verifier.verify({ signature: token, rawBody: body, url: URL }));
      }
    }
    const sync = createVerifier({ currentSigningKey: CURRENT, nextSigningKey: NEXT, now: () => NOW, implementation: 'node' });
    await captured('verifySync', () => sync.verifySync({ signature: tokens['unknown key'], rawBody: body }));
    expectNoSecrets();
  });

  it('configuration mistakes around keys', async () => {
    await captured('key of the wrong type', () => createVerifier({ currentSigningKey: 42 as unknown as string }));
    await captured('sign without a key', () => sign({ key: ' ', url: URL, rawBody: body }));
    await captured('sign with a bad URL', () => sign({ key: CURRENT, url: 'ftp://x', rawBody: body }));
    await captured('signRequest without a key', () => signRequest({ url: URL, env: { MAILROOM_NEXT_SIGNING_KEY: NEXT } }));
    await captured('bad clock', () =>
      createVerifier({ currentSigningKey: CURRENT, now: () => Number.NaN }).verify({ signature: 'a.b.c', rawBody: '' }),
    );
    expectNoSecrets();
  });
});

describe('sending: no token or password in any error', () => {
  let stub: StubServer;
  beforeAll(async () => {
    stub = await startStubServer();
  });
  afterAll(() => stub.close());
  beforeEach(() => stub.clear());

  const messaging = (token = TOKEN) =>
    createMessagingClient({ baseUrl: stub.url, token, env: {}, retry: false, sleep: async () => {}, now: () => NOW });

  it('a wrong token (401), a read-only token writing (403), drops, 5xx and 429s', async () => {
    stub.reply(
      { status: 401, json: { error: 'invalid token' } },
      { status: 401, body: 'Unauthorized' },
      { status: 403, json: { error: 'read-only token may only GET' } },
      { reset: true },
      { status: 503, body: '<html>upstream down</html>' },
      {
        status: 429,
        headers: { 'RateLimit-Limit': '1', 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(NOW / 1000 + 60) },
        json: { error: 'daily' },
      },
    );
    await captured('401 enqueue', () => messaging().enqueue({ queue: 'q', destination: URL, body }));
    await captured('401 list', () => messaging().urlGroups.list());
    await captured('403', () => messaging(READ_ONLY_TOKEN).enqueueJSON({ queue: 'q', destination: URL, body: {} }));
    await captured('reset', () => messaging().workflowDlq.list());
    await captured('503', () => messaging().urlGroups.addEndpoints('g', [{ url: URL }]));
    await captured('429', () => messaging().workflowDlq.retriggerFailureCallback('1-0'));
    expect(stub.requests.map((r) => r.headers.authorization)).toContain(`Bearer ${TOKEN}`);
    expectNoSecrets();
  });

  it('management credentials rejected, and Basic auth mistakes', async () => {
    stub.reply({ status: 401, json: { error: 'bad credentials' } }, { status: 500, json: { error: 'boom' } });
    const management = () =>
      createManagementClient({ baseUrl: `${stub.url}/v2`, user: USER, password: PASSWORD, env: {}, retry: false, sleep: async () => {} });
    await captured('401 users', () => management().users());
    await captured('500 stats', () => management().stats('user-1'));
    await captured('user with a colon', () =>
      createManagementClient({ baseUrl: stub.url, user: `a:${PASSWORD}`, password: PASSWORD, env: {} }),
    );
    expectNoSecrets();
  });

  it('configuration errors name the option and variable, never the value', async () => {
    await captured('no token', () => createMessagingClient({ baseUrl: stub.url, env: {} }));
    await captured('token with a space', () => createMessagingClient({ baseUrl: stub.url, token: `${TOKEN} x`, env: {} }));
    await captured('token with a control character', () => createMessagingClient({ baseUrl: stub.url, token: `${TOKEN}\u0007`, env: {} }));
    await captured('token not a string', () => createMessagingClient({ baseUrl: stub.url, token: 42 as unknown as string, env: {} }));
    await captured('no base URL, token from env', () => createMessagingClient({ env: { MAILROOM_TOKEN: TOKEN } }));
    await captured('credentials in the base URL', () =>
      createMessagingClient({ baseUrl: `http://user:${PASSWORD}@127.0.0.1:1`, token: TOKEN, env: {} }),
    );
    await captured('no password', () => createManagementClient({ baseUrl: stub.url, user: USER, env: {} }));
    await captured('password with a newline inside', () =>
      createManagementClient({ baseUrl: stub.url, user: USER, password: `${PASSWORD}\nx`, env: {} }),
    );
    await captured('unreachable service', () =>
      createMessagingClient({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, env: {}, retry: false }).enqueue({
        queue: 'q',
        destination: URL,
        body,
      }),
    );
    expectNoSecrets();
  });
});

import { describe, expect, it } from 'vitest';
import { startDevServer } from '../src/index';
import { createLogger } from '../src/events';
import { always, startDestination } from './helpers/destination';
import { waitUntil } from './helpers/wait';
import { createMessagingClient } from '@mailroom/core';

/** Runs a small scenario (a delivery, a retry then failure with a callback) and returns the log lines. */
async function scenario(format: 'text' | 'json'): Promise<{ lines: string[]; secrets: string[] }> {
  const lines: string[] = [];
  const destination = await startDestination();
  destination.script('/down', always(500));
  const logger = createLogger(format, (line) => lines.push(line))!;
  const server = await startDevServer({ port: 0, timeScale: 0.001, log: logger, headerPrefix: 'Service' });
  try {
    const client = createMessagingClient({ baseUrl: server.url, token: server.token, retry: false, env: {} });
    await client.enqueue({ queue: 'q', destination: `${destination.url}/ok`, body: 'x' });
    await client.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 1,
      retryDelay: '2000',
      callback: `${destination.url}/cb`,
      failureCallback: `${destination.url}/fail`,
      workflow: { runId: 'wfr_log', url: `${destination.url}/wf` },
    });
    await waitUntil(() => lines.filter((line) => line.includes('delivered')).length >= 4, 'four deliveries in the log');
    return {
      lines,
      secrets: [server.token, server.readOnlyToken, server.managementPassword, server.currentSigningKey, server.nextSigningKey],
    };
  } finally {
    await server.close();
    await destination.close();
  }
}

describe('logs', () => {
  it('prints one readable line per event and never a token or signing key', async () => {
    const { lines, secrets } = await scenario('text');
    const text = lines.join('\n');
    expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toMatch(/accepted msg_\S+ -> http:\/\/127\.0\.0\.1:\d+\/ok queue=q/);
    expect(text).toMatch(/delivered msg_\S+ -> \S+\/ok status=200 retried=0/);
    expect(text).toMatch(/retry scheduled msg_\S+ -> \S+\/down after status=500 retried=0, next in 2s \(retry-delay, waits 2ms scaled\)/);
    expect(text).toMatch(/failed msg_\S+ -> \S+\/down after status=500 retried=1 \(retries-exhausted\)/);
    expect(text).toMatch(/dlq \d+-\d+ holds msg_\S+ \(workflow run wfr_log\)/);
    expect(text).toMatch(/callback msg_\S+ -> \S+\/cb for msg_/);
    expect(text).toMatch(/failure-callback msg_\S+ -> \S+\/fail for msg_/);
    for (const line of lines) expect(line).not.toContain('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('prints JSON lines with --log json', async () => {
    const { lines, secrets } = await scenario('json');
    const events = lines.map((line) => JSON.parse(line) as { type: string; time: string });
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['listening', 'accepted', 'delivered', 'retry', 'failed', 'dlq', 'callback']),
    );
    expect(events.find((event) => event.type === 'retry')).toMatchObject({ delayMs: 2000, scaledDelayMs: 2, delaySource: 'retry-delay' });
    for (const secret of secrets) expect(lines.join('\n')).not.toContain(secret);
  });

  it('redacts credentials embedded in a URL', async () => {
    const lines: string[] = [];
    createLogger('text', (line) => lines.push(line))!({
      type: 'delivered',
      messageId: 'msg_1',
      kind: 'message',
      url: 'https://user:pw@app.test/x',
      status: 200,
      retried: 0,
    });
    expect(lines[0]).toContain('https://***@app.test/x');
  });

  it('escapes terminal control sequences a batch item brought in its destination or callback URL', async () => {
    const lines: string[] = [];
    const server = await startDevServer({
      port: 0,
      timeScale: 0.001,
      log: createLogger('text', (line) => lines.push(line)),
      headerPrefix: 'Service',
    });
    try {
      const batch = (items: unknown[]) =>
        fetch(`${server.url}/v2/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(items),
        });
      // A header value is refused with a control character in it: it could never be delivered.
      const refused = await batch([
        { destination: 'http://127.0.0.1:9/x', headers: { 'Service-Callback': 'http://127.0.0.1:9/cb\u001b[31m' }, body: 'x' },
      ]);
      expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([
        400,
        expect.stringMatching(/control character/),
      ]);
      // A destination URL takes them (as the service does), and the log escapes them.
      const answer = await batch([
        {
          destination: 'http://127.0.0.1:9/\u001b[2J\u001b]0;pwned\u0007',
          headers: { 'Service-Callback': 'http://127.0.0.1:9/cb%1B[31m', 'Service-Retries': '0' },
          body: 'x',
        },
      ]);
      expect(answer.status).toBe(200);
      await waitUntil(() => lines.some((line) => line.startsWith('failed', 13)), 'the failed attempt in the log');
      const text = lines.join('\n');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may reach the terminal.
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(text).toContain('\\u001b[2J\\u001b]0;pwned\\u0007');
      expect(text).toContain('cb%1B[31m');
    } finally {
      await server.close();
    }
  });
});

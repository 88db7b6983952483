import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli, useBuiltCli } from './helpers/cli-process';
import { seeded } from './helpers/seeded';

// A batch is accepted all or none: `mailroom dev --data-dir` SIGKILLed at points drawn from a seeded
// walk while it takes a 50,000-item batch (before the request is read, while the items are checked,
// while they are committed, after the answer), then started again on the same directory: every item
// of the batch is there, or none is; and every one is there when the batch was answered.

const cli = useBuiltCli();
const ITEMS = 50_000;

function batchBody(label: string): string {
  const item = (index: number) => ({
    destination: `http://127.0.0.1:9/item-${index}`,
    headers: { 'Service-Delay': '1h', 'Service-Label': label },
    body: `{"item":${index}}`,
  });
  return JSON.stringify(Array.from({ length: ITEMS }, (_, index) => item(index)));
}

/** How many of the batch's items a server holds (its label names them). */
async function itemsOf(url: string, token: string, label: string): Promise<number> {
  const response = await fetch(`${url}/dev/messages?label=${label}&count=1`, { headers: { authorization: `Bearer ${token}` } });
  return ((await response.json()) as { total: number }).total;
}

describe('a batch, with the server killed while it takes it', () => {
  it('keeps all of its items or none, at any point of a kill, and all once it was answered', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-batch-kill-'));
    const random = seeded(0xba7c);
    const outcomes: string[] = [];
    try {
      // A first batch that is not killed: how long one takes here, to spread the kills over.
      let server = await startCli(cli(), dataDir);
      const started = Date.now();
      const first = await fetch(`${server.url}/v2/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: batchBody('calibration'),
      });
      expect(first.status).toBe(200);
      const takesMs = Date.now() - started;
      expect(await itemsOf(server.url, server.token, 'calibration')).toBe(ITEMS);
      for (let trial = 0; trial < 6; trial++) {
        const label = `trial-${trial}`;
        const killAfterMs = Math.floor(random() * takesMs * 1.3);
        let answered = false;
        const sent = fetch(`${server.url}/v2/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
          body: batchBody(label),
        }).then(
          (response) => {
            answered = response.status === 200;
          },
          () => {},
        );
        await new Promise((resolve) => setTimeout(resolve, killAfterMs));
        server.child.kill('SIGKILL');
        await server.exited;
        await sent;
        server = await startCli(cli(), dataDir);
        const held = await itemsOf(server.url, server.token, label);
        outcomes.push(`${label}: killed after ${killAfterMs} ms, ${answered ? 'answered' : 'not answered'}, ${held} items`);
        expect([label, held === 0 || held === ITEMS]).toEqual([label, true]);
        if (answered) expect([label, held]).toEqual([label, ITEMS]);
        // The batches before it were untouched by its kill.
        expect(await itemsOf(server.url, server.token, 'calibration')).toBe(ITEMS);
      }
      server.child.kill('SIGKILL');
      await server.exited;
    } finally {
      console.log(outcomes.join('\n'));
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});

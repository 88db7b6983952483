import { Client, Receiver } from '@upstash/qstash';
import { serve } from '@upstash/workflow';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestService, type TestService } from '../src';

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe("the vendor's Workflow SDK under the test service", () => {
  it('runs a workflow that sleeps a day and waits for an event, in virtual time', async () => {
    const journal: string[] = [];
    service = await createTestService({
      headerPrefix: 'Upstash',
      createApp: (env) => {
        const { handler } = serve<{ orderId: string }>(
          async (context) => {
            const orderId = await context.run('reserve', () => {
              journal.push('reserve');
              return context.requestPayload.orderId;
            });
            await context.sleep('cool-off', '1d');
            const { eventData, timeout } = await context.waitForEvent('await payment', `paid-${orderId}`, { timeout: '7d' });
            await context.run('ship', () => {
              journal.push(`ship ${JSON.stringify(eventData)} ${timeout}`);
            });
          },
          {
            qstashClient: new Client({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN }),
            receiver: new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY! }),
            disableTelemetry: true,
          },
        );
        return handler;
      },
    });
    const client = new Client({ baseUrl: service.env.QSTASH_URL, token: service.env.QSTASH_TOKEN });
    const started = service.now();
    await client.publishJSON({ url: 'http://app.test/workflow', body: { orderId: 'o-7' } });
    // What is due now, not the sleep: runUntilIdle() would sleep the day and time the wait out too.
    await service.advance(0);
    expect(journal).toEqual(['reserve']);

    await service.advance('23h');
    expect(journal).toEqual(['reserve']);
    await service.advance('1h');
    // Slept a day, now waiting for the payment.
    const [waiting] = await service.runs();
    expect(waiting?.workflowState).toBe('RUN_STARTED');

    await service.notify('paid-o-7', { amount: 42 });
    await service.runUntilIdle();
    expect(journal).toEqual(['reserve', 'ship {"amount":42} false']);
    const [run] = await service.runs();
    expect(run?.workflowState).toBe('RUN_SUCCESS');
    expect(service.now() - started).toBeGreaterThanOrEqual(86_400_000);
  });

  it('times the wait out after its timeout when no event comes', async () => {
    const ended: string[] = [];
    service = await createTestService({
      headerPrefix: 'Upstash',
      createApp: (env) =>
        serve(
          async (context) => {
            const { timeout } = await context.waitForEvent('await payment', 'never', { timeout: '7d' });
            await context.run('end', () => {
              ended.push(timeout ? 'timed out' : 'notified');
            });
          },
          {
            qstashClient: new Client({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN }),
            receiver: new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY!, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY! }),
            disableTelemetry: true,
          },
        ).handler,
    });
    const client = new Client({ baseUrl: service.env.QSTASH_URL, token: service.env.QSTASH_TOKEN });
    await client.publishJSON({ url: 'http://app.test/workflow', body: {} });
    await service.advance('6d');
    expect(ended).toEqual([]);
    await service.runUntilIdle();
    expect(ended).toEqual(['timed out']);
  });
});

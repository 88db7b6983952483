// 100 tests in one file (HUNDRED_ROUNDS pairs): each a fresh test service, a scenario, its check.
import { createTestService } from '@mailroom/testing';
import { afterEach, expect, it } from 'vitest';
import { appFor } from '../lib/testing-app.mjs';

let service;
afterEach(() => service?.close());

async function start() {
  service = await createTestService({ headerPrefix: 'Upstash', createApp: (env) => ({ listener: appFor(env) }) });
  return service.client;
}

for (let round = 0; round < Number(process.env.HUNDRED_ROUNDS ?? 50); round++) {
  it(`dead-letters a message after 5 retries (${round})`, async () => {
    const client = await start();
    await client.publish({ destination: 'http://app.test/fail', body: 'x', retries: 5 });
    await service.runUntilIdle();
    expect(await service.dlq()).toHaveLength(1);
  });

  it(`runs a workflow with a day's sleep (${round})`, async () => {
    const client = await start();
    await client.publish({ destination: 'http://app.test/workflow', body: '{}' });
    await service.runUntilIdle();
    expect((await service.runs())[0]?.workflowState).toBe('RUN_SUCCESS');
  });
}

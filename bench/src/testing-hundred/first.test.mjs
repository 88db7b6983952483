// One test in a file of its own: the workflow with a day's sleep as the first test vitest runs in a
// fresh worker, the time vitest reports for it (the file's imports are not in it).
import { createTestService } from '@mailroom/testing';
import { expect, it } from 'vitest';
import { appFor } from '../lib/testing-app.mjs';

it("runs a workflow with a day's sleep, as the file's first test", async () => {
  const service = await createTestService({ headerPrefix: 'Upstash', createApp: (env) => ({ listener: appFor(env) }) });
  try {
    await service.client.publish({ destination: 'http://app.test/workflow', body: '{}' });
    await service.runUntilIdle();
    expect((await service.runs())[0]?.workflowState).toBe('RUN_SUCCESS');
  } finally {
    await service.close();
  }
});

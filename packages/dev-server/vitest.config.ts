import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig, startingWith } from '../../vitest.shared';

// First the files that wait on real time (an app's lease, kills and restarts), so the other worker
// runs the rest while the lease test sleeps for a minute, instead of that minute ending the run. A
// third worker was faster alone, but not inside `npm test`, where turbo runs another task beside it.
const sequence = startingWith(fileURLToPath(new URL('.', import.meta.url)), [
  'test/crash-mid-handler.test.ts',
  'test/batch-all-or-none.test.ts',
  'test/crash-under-load.test.ts',
  'test/failure-injection.test.ts',
]);

export default mergeConfig(sharedTestConfig, defineConfig({ test: { globalSetup: ['test/setup/built-artefacts.ts'], sequence } }));

import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      // The packages are packed once for every app.
      globalSetup: ['src/global-setup.ts'],
      // One app at a time: each installs, compiles and runs servers, and `next build` alone fills 2 cores.
      fileParallelism: false,
      testTimeout: 180_000,
      hookTimeout: 300_000,
    },
  }),
);

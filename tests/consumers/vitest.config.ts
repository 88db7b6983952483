import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    test: {
      // The packages are packed once for every app.
      globalSetup: ['src/global-setup.ts'],
      // Two files at a time, as everywhere (sharedTestConfig's maxWorkers): one app's install waits on
      // the registry and the disk while another builds.
      testTimeout: 180_000,
      hookTimeout: 300_000,
    },
  }),
);

import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

// A file per process: the tests of what is said once per process (missing keys, read in core, which
// vi.resetModules cannot reload) need a process no earlier file has warned in.
export default mergeConfig(sharedTestConfig, defineConfig({ test: { isolate: true } }));

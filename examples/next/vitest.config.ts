import { defineConfig, mergeConfig } from 'vitest/config';
import { isolatedTestConfig } from '../../vitest.shared';

export default mergeConfig(
  isolatedTestConfig,
  defineConfig({ test: { env: { MAILROOM_CURRENT_SIGNING_KEY: 'sig_example_current', MAILROOM_NEXT_SIGNING_KEY: 'sig_example_next' } } }),
);

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    env: { MAILROOM_CURRENT_SIGNING_KEY: 'sig_example_current', MAILROOM_NEXT_SIGNING_KEY: 'sig_example_next' },
  },
});

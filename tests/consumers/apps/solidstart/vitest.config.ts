import { defineConfig } from 'vitest/config';

// Route modules tested as plain modules: without the app.config.ts of vinxi, which builds a
// whole app. The keys a module-level receiver reads at its first request.
export default defineConfig({
  test: { env: { MAILROOM_CURRENT_SIGNING_KEY: 'sig_test_current', MAILROOM_NEXT_SIGNING_KEY: 'sig_test_next' } },
});

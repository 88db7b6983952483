import node from '@astrojs/node';
import { defineConfig, envField } from 'astro/config';

export default defineConfig({
  adapter: node({ mode: 'standalone' }),
  telemetry: false,
  env: {
    schema: {
      MAILROOM_CURRENT_SIGNING_KEY: envField.string({ context: 'server', access: 'secret' }),
      MAILROOM_NEXT_SIGNING_KEY: envField.string({ context: 'server', access: 'secret' }),
    },
  },
});

import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    // The console is found relative to the module (`import.meta.url`), which CommonJS lacks.
    shims: true,
    clean: true,
    // No maps: see packages/core/tsup.config.ts.
    sourcemap: false,
    target: 'node20',
  },
  {
    // The CLI is ESM only: it is run, never imported.
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    // No maps: see packages/core/tsup.config.ts.
    sourcemap: false,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);

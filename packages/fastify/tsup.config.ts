import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // No maps: see packages/core/tsup.config.ts.
  sourcemap: false,
  target: 'node20',
});

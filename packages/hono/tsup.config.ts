import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // No maps: see packages/core/tsup.config.ts.
  sourcemap: false,
  // Workers, Deno and Bun as well as Node: nothing here is Node's.
  target: 'es2022',
});

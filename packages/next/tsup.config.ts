import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', pages: 'src/pages/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});

import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    adapter: 'src/adapter/index.ts',
    testing: 'src/testing/index.ts',
    undici: 'src/undici/index.ts',
    protocol: 'src/protocol/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // No maps: the output is unminified ESM/CJS, so stack traces already point at readable code,
  // and maps with their sources were 64% of core's unpacked size.
  sourcemap: false,
  target: 'node20',
  splitting: true,
  treeshake: true,
});

import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    adapter: 'src/adapter.ts',
    testing: 'src/testing.ts',
    undici: 'src/undici.ts',
    protocol: 'src/protocol.ts',
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

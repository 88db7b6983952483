import type { Options } from 'tsup';

/**
 * The build every published package shares: ESM and CommonJS, each with its types, for Node 20.
 * No source maps: the output is unminified, so stack traces already point at readable code, and maps
 * with their sources were 64% of core's unpacked size.
 */
export function packageBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return { entry, format: ['esm', 'cjs'], dts: true, clean: true, sourcemap: false, target: 'node20', ...overrides };
}

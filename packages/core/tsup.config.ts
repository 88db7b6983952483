import { copyFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

const entry = {
  index: 'src/index.ts',
  adapter: 'src/adapter.ts',
  testing: 'src/testing.ts',
  undici: 'src/undici.ts',
  'internal-protocol': 'src/internal-protocol.ts',
  idempotency: 'src/idempotency.ts',
  tracing: 'src/tracing.ts',
};

// jose ships only ES modules. Node 20.19+ can `require` them, Jest's module system cannot (Nest's
// default test runner): the CommonJS build carries its own copy of jose, with jose's licence beside it.
const joseLicence = createRequire(import.meta.url)
  .resolve('jose')
  .replace(/dist[\\/].*$/, 'LICENSE.md');

// The JavaScript of each format is built apart (only CommonJS inlines jose); the types of both in one
// pass of their own: one TypeScript program for .d.ts and .d.cts, where a pass per format took twice
// the time of the whole rest of the build.
export default defineConfig([
  packageBuild(entry, { format: ['esm'], splitting: true, treeshake: true, dts: false }),
  packageBuild(entry, {
    format: ['cjs'],
    splitting: true,
    treeshake: true,
    clean: false,
    dts: false,
    noExternal: ['jose'],
    // jose is loaded when first used (src/signature): `import()` here would need Jest's ESM support, a
    // `require` of the chunk does not.
    esbuildOptions: (options) => {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
    onSuccess: () => copyFile(joseLicence, 'dist/jose.LICENSE.md'),
  }),
  packageBuild(entry, { clean: false, dts: { only: true } }),
]);

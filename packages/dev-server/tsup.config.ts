import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

export default defineConfig([
  // The console is found relative to the module (`import.meta.url`), which CommonJS lacks.
  packageBuild({ index: 'src/index.ts', 'internal-embedded': 'src/internal-embedded.ts' }, { shims: true }),
  // The CLI is ESM only: it is run, never imported.
  packageBuild({ cli: 'src/cli/main.ts' }, { format: ['esm'], dts: false, clean: false, banner: { js: '#!/usr/bin/env node' } }),
]);

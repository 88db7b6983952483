import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

// Workers, Deno and Bun as well as Node: nothing here is Node's.
export default defineConfig(packageBuild({ index: 'src/index.ts' }, { target: 'es2022' }));

import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.shared';

export default defineConfig(
  packageBuild(
    { index: 'src/index.ts', adapter: 'src/adapter.ts', testing: 'src/testing.ts', undici: 'src/undici.ts', protocol: 'src/protocol.ts' },
    { splitting: true, treeshake: true },
  ),
);

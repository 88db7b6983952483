import { createRequire } from 'node:module';
import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared';

// @mailroom/nestjs's peer range is `^11 || ^12`; its own workspace tests NestJS 12 (hoisted at the
// root), and this one runs the very same test files against NestJS 11, installed in this
// workspace's own node_modules. The aliases point every `@nestjs/*` import of those tests and of
// the adapter's source at the 11 copies; NestJS's own requires between its packages then stay
// within 11, since all four live side by side here.
const local = createRequire(import.meta.url);
const NEST_PACKAGES = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/testing'];

export default mergeConfig(
  sharedTestConfig,
  defineConfig({
    resolve: { alias: NEST_PACKAGES.map((name) => ({ find: new RegExp(`^${name}$`), replacement: local.resolve(name) })) },
    test: { include: ['../../packages/nestjs/test/**/*.test.ts', 'test/**/*.test.ts'] },
  }),
);

import { Controller } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SignatureGuard } from '../../../packages/nestjs/src';

// Without the aliases of vitest.config.ts, `@nestjs/*` in the shared test files and in the adapter's
// source would resolve to the hoisted NestJS 12 and this workspace would silently test that again.
describe('the NestJS these tests run against', () => {
  const here = createRequire(import.meta.url);
  const hoisted = createRequire(new URL('../../../packages/nestjs/package.json', import.meta.url));

  it('is the major 11 installed in this workspace, for every @nestjs package', () => {
    for (const name of ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/testing']) {
      expect(versionOf(here, name), name).toMatch(/^11\./);
      expect(versionOf(hoisted, name), name).not.toMatch(/^11\./);
    }
  });

  it("is what the adapter's own source gets: SignatureGuard injects NestJS 11's Reflector", () => {
    // `@Inject(Reflector)` records the class itself; resolved without the aliases, the adapter's
    // source (outside this workspace) would record the hoisted NestJS 12 one.
    const deps = Reflect.getMetadata('self:paramtypes', SignatureGuard) as Array<{ index: number; param: unknown }>;
    const reflector = deps.find((dep) => dep.index === 1)?.param;
    expect(reflector).toBe(here('@nestjs/core').Reflector);
    expect(reflector).not.toBe(hoisted('@nestjs/core').Reflector);
  });

  it('is what an import of @nestjs/* gives, not the hoisted copy', () => {
    expect(Controller).toBe(here('@nestjs/common').Controller);
    expect(Controller).not.toBe(hoisted('@nestjs/common').Controller);
    expect(NestFactory).toBe(here('@nestjs/core').NestFactory);
    expect(ExpressAdapter).toBe(here('@nestjs/platform-express').ExpressAdapter);
    expect(Test).toBe(here('@nestjs/testing').Test);
  });
});

/** The version of the package `name` as `require` resolves it (@nestjs/testing does not export its package.json). */
function versionOf(require: NodeJS.Require, name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (manifest.name === name) return manifest.version;
    } catch {
      // No package.json at this level: keep walking up.
    }
  }
  throw new Error(`no package.json found for ${name}`);
}

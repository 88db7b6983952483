import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a start of the dev server loads, read off its build: the modules `import` statements reach
// from the package's entry and from `mailroom dev`'s own chunk (loaded later with `import()` are the
// MCP endpoint, tracing, and the commands that call a service). zod and the client half of core, which
// a start never needs, were most of the time its import took, on every start and restart.

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const CORE_MANIFEST = createRequire(import.meta.url).resolve('@mailroom/core/package.json');
const STATIC_IMPORT = /^(?:import|export)\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["'];?$/gm;

/** Where `@mailroom/core/<entry>` leads an ES module import, by core's `exports` map. */
function coreEntry(specifier: string): string {
  const manifest = JSON.parse(readFileSync(CORE_MANIFEST, 'utf8')) as { exports: Record<string, { import?: { default: string } }> };
  const target = manifest.exports[`.${specifier.slice('@mailroom/core'.length)}`]?.import?.default;
  if (!target) throw new Error(`@mailroom/core has no entry for ${specifier}`);
  return join(dirname(CORE_MANIFEST), target);
}

/** Every file and package the static imports of `entries` reach: files by path, packages by name. */
function staticallyLoaded(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (specifier!.startsWith('.')) visit(join(dirname(file), specifier!));
      else if (specifier!.startsWith('@mailroom/core')) {
        packages.add(specifier!);
        visit(coreEntry(specifier!));
      } else if (!specifier!.startsWith('node:') && !builtinModules.includes(specifier!)) {
        packages.add(specifier!);
      }
    }
  };
  for (const entry of entries) visit(entry);
  return { files, packages };
}

describe("the dev server's start", () => {
  const runCli = readdirSync(DIST).filter((name) => /^run-cli-.*\.js$/.test(name));
  const loaded = staticallyLoaded([join(DIST, 'index.js'), ...runCli.map((name) => join(DIST, name))]);

  it('is read from the build: the package entry and the chunk `mailroom dev` runs', () => {
    expect(runCli).toHaveLength(1);
    expect(loaded.files.size).toBeGreaterThan(3);
  });

  it('loads neither zod nor the client half of core', () => {
    expect([...loaded.packages].filter((name) => name === 'zod' || name.startsWith('zod/'))).toEqual([]);
    // The root entry is the client (createMessagingClient and its response schemas); the server takes
    // what it shares with it from the internal entry.
    expect([...loaded.packages].filter((name) => name === '@mailroom/core')).toEqual([]);
    expect(loaded.packages).toContain('@mailroom/core/internal-protocol');
    const zodInCore = [...loaded.files].filter((file) => /from ["']zod["']/.test(readFileSync(file, 'utf8')));
    expect(zodInCore).toEqual([]);
  });
});

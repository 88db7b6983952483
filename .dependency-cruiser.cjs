/**
 * `npm test` fails on an import cycle between files of the same package, type imports included (a
 * cycle means two modules that cannot be read, tested or moved one without the other), and on an
 * import that breaks the dev server's layering.
 */
module.exports = {
  forbidden: [
    // The dev server's layers, each importing only those below it (docs/architecture.md): journal <
    // state < engine < service < the routes (http, workflows, management) < the server and the CLI.
    {
      name: 'journal-imports-nothing-above-it',
      severity: 'error',
      comment: 'journal/ is the bottom layer: records on disk, knowing nothing of what they hold.',
      from: { path: '^packages/dev-server/src/journal/' },
      to: { path: '^packages/dev-server/src/', pathNot: '^packages/dev-server/src/journal/' },
    },
    {
      name: 'state-below-engine',
      severity: 'error',
      comment: 'state/ is what the reducer derives from records: it never reaches up into delivery, routes or the server.',
      from: { path: '^packages/dev-server/src/state/' },
      to: {
        path: '^packages/dev-server/src/(engine|http|workflows|management|mcp|cli)/|^packages/dev-server/src/(service|start-dev-server)\\.ts$',
      },
    },
    {
      name: 'engine-below-routes',
      severity: 'error',
      comment: 'engine/ delivers and accepts without HTTP (an in-process test service runs it): it never imports a route.',
      from: { path: '^packages/dev-server/src/engine/' },
      to: {
        path: '^packages/dev-server/src/(http|workflows|management|mcp|cli)/|^packages/dev-server/src/(service|start-dev-server)\\.ts$',
      },
    },
    {
      name: 'leaves-below-everything',
      severity: 'error',
      comment: 'Settings (and plans), events (and their log), errors, ids and credentials are what every layer shares.',
      from: { path: '^packages/dev-server/src/(errors|events|ids|settings|credentials)\\.ts$' },
      to: {
        path: '^packages/dev-server/src/(engine|http|workflows|management|mcp|cli)/|^packages/dev-server/src/(service|start-dev-server)\\.ts$',
      },
    },
    {
      name: 'routes-below-the-server',
      severity: 'error',
      comment: 'Routes answer requests; starting a server or a CLI is above them.',
      from: { path: '^packages/dev-server/src/(http|workflows|management)/' },
      to: { path: '^packages/dev-server/src/cli/|^packages/dev-server/src/start-dev-server\\.ts$' },
    },
    {
      name: 'core-loads-zod-when-first-needed',
      severity: 'error',
      comment:
        "core's schemas (and zod, which only they import) are most of core's import time: outside schemas/, core " +
        'imports them as types only, and reaches them through schemas/lazy.ts, which loads them with the first answer to check.',
      from: { path: '^packages/core/src/', pathNot: '^packages/core/src/schemas/' },
      to: { path: '^packages/core/src/schemas/(?!lazy\\.ts$)', dependencyTypesNot: ['type-only', 'type-import'] },
    },
    {
      name: 'core-schemas-lazy-loader-stays-light',
      severity: 'error',
      comment: 'schemas/lazy.ts is imported at start-up: it reaches the other schemas modules by import() only.',
      from: { path: '^packages/core/src/schemas/lazy\\.ts$' },
      to: { path: '^packages/core/src/schemas/', dependencyTypesNot: ['type-only', 'type-import', 'dynamic-import'] },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Modules import each other (types count). Move what both need into a lower module.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Type-only imports count: a cycle through types still ties the two files together.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs'] },
  },
};

// The public surface of a package, one API Extractor report per entry point of its `exports` map,
// checked in under `api/`. Run in a package after its build: fails when the built types no longer
// match the report, so the surface changes only on purpose (`npm run api:update` accepts a change).
//
//   node ../../scripts/api-report.mjs            check this package (npm test, via each package's lint)
//   node scripts/api-report.mjs --update --all   rewrite every package's reports (npm run api:update)
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

/** `{ name, types }` per entry point: `.` is `index`, `./pages` is `pages`; the ESM types stand for both builds. */
function entryPoints(packageDir, manifest) {
  const entries = [];
  for (const [key, target] of Object.entries(manifest.exports ?? {})) {
    if (key === './package.json') continue;
    const types = target?.import?.types;
    if (typeof types !== 'string') throw new Error(`${manifest.name}: exports["${key}"] has no import.types`);
    entries.push({ name: key === '.' ? 'index' : key.slice(2).replaceAll('/', '-'), types: path.join(packageDir, types) });
  }
  return entries;
}

function configFor(packageDir, entry) {
  return {
    projectFolder: packageDir,
    mainEntryPointFilePath: entry.types,
    compiler: {
      overrideTsconfig: {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          strict: true,
          skipLibCheck: true,
          types: ['node'],
        },
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: `${entry.name}.api.md`,
      reportFolder: path.join(packageDir, 'api'),
      reportTempFolder: path.join(packageDir, 'node_modules', '.api-report'),
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: 'warning' } },
      // The report shows a type the surface uses but does not export; release tags are not our convention.
      extractorMessageReporting: {
        default: { logLevel: 'none' },
        'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
      },
      tsdocMessageReporting: { default: { logLevel: 'none' } },
    },
  };
}

/** Checks (or with `update`, rewrites) one package's reports; false when one differs or failed. */
function reportPackage(packageDir, update) {
  const packageJsonPath = path.join(packageDir, 'package.json');
  const manifest = JSON.parse(readFileSync(packageJsonPath, 'utf8'));
  let ok = true;
  const entries = entryPoints(packageDir, manifest);
  for (const entry of entries) {
    if (!existsSync(entry.types))
      throw new Error(`${manifest.name}: ${path.relative(packageDir, entry.types)} is missing; build the package first`);
  }
  if (update) mkdirSync(path.join(packageDir, 'api'), { recursive: true });
  const prepare = (entry) =>
    ExtractorConfig.prepare({
      configObject: configFor(packageDir, entry),
      configObjectFullPath: undefined,
      packageJsonFullPath: packageJsonPath,
    });
  // One TypeScript program for every entry point: compiling it once per entry would cost seconds each.
  const compilerState = CompilerState.create(prepare(entries[0]), { additionalEntryPoints: entries.map((entry) => entry.types) });
  for (const entry of entries) {
    const result = Extractor.invoke(prepare(entry), { localBuild: update, compilerState, messageCallback: quietInfo });
    const report = `api/${entry.name}.api.md`;
    if (!result.succeeded || (result.apiReportChanged && !update)) {
      ok = false;
      console.error(
        result.apiReportChanged
          ? `${manifest.name}: the public surface of ${entry.name === 'index' ? 'the root' : `./${entry.name}`} changed (see ${report}). If that is on purpose, run npm run api:update and commit the report.`
          : `${manifest.name}: API Extractor failed on ${report} (${result.errorCount} errors)`,
      );
    } else if (result.apiReportChanged) {
      console.log(`${manifest.name}: updated ${report}`);
    }
  }
  return ok;
}

const update = process.argv.includes('--update');
const packagesDir = path.resolve(import.meta.dirname, '..', 'packages');
const packageDirs = process.argv.includes('--all')
  ? readdirSync(packagesDir)
      .map((name) => path.join(packagesDir, name))
      .filter((dir) => existsSync(path.join(dir, 'package.json')))
  : [process.cwd()];
let ok = true;
for (const dir of packageDirs) ok = reportPackage(dir, update) && ok;
process.exitCode = ok ? 0 : 1;

/** API Extractor's progress lines say nothing a passing check needs. */
function quietInfo(message) {
  if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
}

// Keeps docs/architecture.md true where a script can tell: each package section's file count, and
// every module its tables name (`http/router.ts`, `journal/`) exists. Run by npm test.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** `.ts`/`.tsx` files under `dir`, recursively. */
function countSources(dir) {
  let count = 0;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) count += countSources(full);
    else if (/\.tsx?$/.test(name)) count += 1;
  }
  return count;
}

const problems = [];
// A section per package source folder: "## Title (`packages/x/src`)", then "N files ...".
const sections = [...doc.matchAll(/^## [^\n]*\(`(packages\/[^`]+\/src)`\)\n\n(\d+) files/gm)];
if (sections.length === 0) problems.push('no "## ... (`packages/<name>/src`)" section followed by "N files" was found');
for (const [, source, stated] of sections) {
  const actual = countSources(path.join(root, source));
  if (actual !== Number(stated)) problems.push(`${source}: the document says ${stated} files, there are ${actual}`);
  const start = doc.indexOf(`(\`${source}\`)`);
  const end = doc.indexOf('\n## ', start);
  const section = doc.slice(start, end === -1 ? undefined : end);
  // First cells of the module tables: `a.ts`, `folder/`, `folder/b.ts`, `../console/`.
  for (const row of section.matchAll(/^\| ([^|]+) \|/gm)) {
    for (const [, name] of row[1].matchAll(/`([^`]+)`/g)) {
      if (!/(\.tsx?|\/)$/.test(name)) continue;
      if (!existsSync(path.join(root, source, name))) problems.push(`${source}: the document names ${name}, which does not exist`);
    }
  }
}

if (problems.length > 0) {
  console.error(`docs/architecture.md no longer matches the code:\n- ${problems.join('\n- ')}`);
  process.exitCode = 1;
}

// Type-checks every TypeScript project named on the command line, as `tsc --noEmit -p` would, in one
// process. Each project is its own program (a package never sees another's global augmentations),
// but a file parsed for one is reused by the next whose settings parse it alike, as editors share
// them: the twelve projects read the same 150,000 lines of vitest, zod and Node declarations.
//   node scripts/typecheck.mjs packages/core/tsconfig.json [more tsconfig.json ...]
import path from 'node:path';
import ts from 'typescript';

const configs = process.argv.slice(2);
if (configs.length === 0) {
  console.error('usage: node scripts/typecheck.mjs <tsconfig.json> [...]: name the projects to check');
  process.exit(2);
}

// The document registry's key is the set of compiler options that change how a file parses or binds.
const settingsKey = ts.createDocumentRegistry().getKeyForCompilationSettings;
/** Parsed and bound source files, by settings key, module format and path. */
const parsed = new Map();

/** A compiler host whose files come from, and go to, the shared cache. */
function sharingHost(options) {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  const key = settingsKey(options);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    const format = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions.impliedNodeFormat : undefined;
    const id = `${key}|${format}|${fileName}`;
    let file = shouldCreateNewSourceFile ? undefined : parsed.get(id);
    if (file === undefined) {
      file = read(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
      if (file !== undefined) parsed.set(id, file);
    }
    return file;
  };
  return host;
}

const formatHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => '\n',
};
const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;

let failed = 0;
for (const config of configs) {
  const started = performance.now();
  const unrecoverable = [];
  const project = ts.getParsedCommandLineOfConfigFile(
    path.resolve(config),
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => unrecoverable.push(diagnostic) },
  );
  if (project === undefined) {
    process.stdout.write(format(unrecoverable, formatHost));
    failed += 1;
    continue;
  }
  const program = ts.createProgram({
    rootNames: project.fileNames,
    options: project.options,
    projectReferences: project.projectReferences,
    host: sharingHost(project.options),
    configFileParsingDiagnostics: project.errors,
  });
  // What `tsc --noEmit` reports: the configuration's problems, then the program's, declarations included.
  const diagnostics = [...program.getConfigFileParsingDiagnostics(), ...ts.getPreEmitDiagnostics(program)];
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (diagnostics.length > 0) {
    process.stdout.write(format(diagnostics, formatHost));
    console.log(`${config}: ${diagnostics.length} problem(s) in ${program.getSourceFiles().length} files (${seconds} s)`);
    failed += 1;
  } else {
    console.log(`${config}: ${program.getSourceFiles().length} files, no problems (${seconds} s)`);
  }
}
process.exit(failed > 0 ? 1 : 0);

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll } from 'vitest';

const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds `mailroom` (src/cli/main.ts) with tsup into a throw-away folder inside this package, so the child
 * runs this very source, unbundled from its dependencies: `@mailroom/core` resolves from the workspace
 * as it would for a user. Answers the script's path and a cleanup.
 */
async function buildCli(): Promise<{ cliPath: string; cleanup: () => Promise<void> }> {
  const cacheDir = join(PACKAGE_DIR, 'node_modules', '.cache');
  await mkdir(cacheDir, { recursive: true });
  const outDir = await mkdtemp(join(cacheDir, 'mailroom-cli-'));
  await build({
    entry: { cli: join(PACKAGE_DIR, 'src', 'cli', 'main.ts') },
    format: ['esm'],
    outDir,
    target: 'node20',
    config: false,
    silent: true,
    dts: false,
    sourcemap: false,
    splitting: false,
    external: ['@mailroom/core'],
  });
  return { cliPath: join(outDir, 'cli.js'), cleanup: () => rm(outDir, { recursive: true, force: true }) };
}

/**
 * Builds the CLI once for the calling test file and removes it afterwards; answers the script's path
 * (valid inside tests).
 */
export function useBuiltCli(): () => string {
  let built: Awaited<ReturnType<typeof buildCli>> | undefined;
  beforeAll(async () => {
    built = await buildCli();
  }, 60_000);
  afterAll(async () => {
    await built?.cleanup();
  });
  return () => built!.cliPath;
}

/** A `mailroom dev` child process, with what its banner and JSON log said. */
export interface CliProcess {
  child: ChildProcess;
  url: string;
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  managementUrl: string;
  managementUser: string;
  managementPassword: string;
  /** Messages the server recovered from its data directory at start (its `listening` event). */
  recovered: number;
  /** Resolves with the signal or exit code once the process is gone. */
  exited: Promise<NodeJS.Signals | number | null>;
  stderr: () => string;
  /** Everything it printed so far (its JSON log after the banner). */
  stdout: () => string;
}

/**
 * Starts `mailroom dev --port 0 --data-dir <dir> --log json` (later `extraArgs` win) and waits for its
 * banner. `launcher`: a command that ends by running (exec) the arguments it is given, e.g. in a mount namespace.
 */
export function startCli(
  cliPath: string,
  dataDir: string,
  timeoutMs = 20_000,
  extraArgs: readonly string[] = [],
  launcher: readonly string[] = [],
): Promise<CliProcess> {
  // The command line sets the prefix; a MAILROOM_* variable in the developer's shell must not change it.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILROOM_')));
  const [command, ...launcherArgs] = [...launcher, process.execPath];
  const child = spawn(
    command!,
    [
      ...launcherArgs,
      cliPath,
      'dev',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--header-prefix',
      'Service',
      '--plan',
      'paid',
      '--log',
      'json',
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    },
  );
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
  let stderr = '';
  let stdout = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const printed = new Map<string, string>();
  let recovered: number | undefined;
  let pending = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailroom dev did not print its banner within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`mailroom dev exited (${String(how)}) before its banner: ${stderr}`));
    });
    // Read to the end, always: a child blocked on a full stdout pipe would stall its deliveries.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (printed.has('MAILROOM_HEADER_PREFIX')) return;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const assignment = /^\s*(MAILROOM_[A-Z_]+)=(\S*)\s*$/.exec(line);
        if (assignment) printed.set(assignment[1]!, assignment[2]!);
        if (line.startsWith('{') && line.includes('"listening"')) recovered = (JSON.parse(line) as { recovered: number }).recovered;
      }
      if (!printed.has('MAILROOM_HEADER_PREFIX')) return;
      clearTimeout(timer);
      resolve({
        child,
        url: printed.get('MAILROOM_URL')!,
        token: printed.get('MAILROOM_TOKEN')!,
        currentSigningKey: printed.get('MAILROOM_CURRENT_SIGNING_KEY')!,
        nextSigningKey: printed.get('MAILROOM_NEXT_SIGNING_KEY')!,
        managementUrl: printed.get('MAILROOM_MANAGEMENT_URL')!,
        managementUser: printed.get('MAILROOM_MANAGEMENT_USER')!,
        managementPassword: printed.get('MAILROOM_MANAGEMENT_PASSWORD')!,
        recovered: recovered ?? -1,
        exited,
        stderr: () => stderr,
        stdout: () => stdout,
      });
    });
  });
}

// Runs dist/worker.js as `wrangler dev` would: bundled with esbuild, served by workerd (the binary
// given as the first argument), every MAILROOM_* variable of this process as a text binding (what
// `.dev.vars` holds). Prints where it listens, asks the Worker to run the scenario, prints the report.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const [workerd] = process.argv.slice(2);
if (!workerd) throw new Error('usage: node dist/worker-launch.js <path to workerd>');

await build({
  entryPoints: ['dist/worker.js'],
  outfile: 'dist/worker.bundle.js',
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  target: 'es2022',
  logLevel: 'error',
});
const bindings = Object.entries(process.env)
  .filter(([name]) => name.startsWith('MAILROOM_'))
  .map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`);
await writeFile(
  'dist/worker.capnp',
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker), (name = "internet", network = (allow = ["public", "private", "local"]))],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.bundle.js")],
  compatibilityDate = "2025-09-01",
  bindings = [${bindings.join(', ')}],
  globalOutbound = "internet",
);
`,
);

const child = spawn(workerd, ['serve', 'dist/worker.capnp', '--control-fd', '3'], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] });
const port = await new Promise<number>((resolve, reject) => {
  let control = '';
  child.stdio[3]!.on('data', (chunk: Buffer) => {
    control += chunk;
    for (const line of control.split('\n')) {
      let message: { event?: string; socket?: string; port?: number };
      try {
        message = JSON.parse(line) as typeof message;
      } catch {
        continue; // a line still arriving
      }
      if (message.event === 'listen' && message.socket === 'http' && message.port) resolve(message.port);
    }
  });
  child.once('exit', (code) => reject(new Error(`workerd exited (${code}) before it listened`)));
});
console.log(`listening on http://127.0.0.1:${port}`);
try {
  const answer = await fetch(`${process.env.MAILROOM_APP_URL}/run`);
  console.log(`REPORT ${await answer.text()}`);
} finally {
  child.kill('SIGTERM');
}

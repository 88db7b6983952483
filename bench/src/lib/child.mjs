// Each measurement runs in its own Node process, so one measurement's JIT state, heap and leftover
// sockets cannot colour the next. The child reports through IPC; progress goes to stderr.
import { fork } from 'node:child_process';

/** Options every measurement child gets on its command line. */
function parseArgs(argv = process.argv.slice(2)) {
  return { smoke: argv.includes('--smoke') };
}

/** In a measurement child: send the result to the parent (or print it when run by hand) and exit. */
export async function report(produce) {
  try {
    const result = await produce(parseArgs());
    if (process.send) process.send({ ok: true, result });
    else console.log(JSON.stringify(result, null, 2));
    process.exitCode = 0;
  } catch (error) {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (process.send) process.send({ ok: false, error: detail, correctness: Boolean(error?.correctness) });
    else console.error(detail);
    process.exitCode = 1;
  }
  // Let IPC flush, then leave even if a stray socket or timer is still around.
  setTimeout(() => process.exit(process.exitCode), 50).unref();
  if (process.channel) process.disconnect?.();
}

/**
 * In the parent: run `file` with `args`, resolve with its result, reject after `timeoutMs`. Its
 * progress (stderr) goes to `onLog` when given, else straight to this process's stderr.
 */
export function runChild(file, args, { timeoutMs, execArgv = [], onLog }) {
  return new Promise((resolve, reject) => {
    const child = fork(file, args, { stdio: ['ignore', 'inherit', onLog ? 'pipe' : 'inherit', 'ipc'], execArgv });
    child.stderr?.setEncoding('utf8').on('data', onLog);
    let message;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', (m) => (message = m));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (message?.ok) resolve(message.result);
      else if (message) reject(Object.assign(new Error(message.error), { correctness: message.correctness }));
      else reject(new Error(`${file} exited with ${signal ?? code} without a result`));
    });
  });
}

/** An error that means "this path is broken": never report a speed for it. */
class CorrectnessError extends Error {
  constructor(message) {
    super(`correctness check failed: ${message}`);
    this.correctness = true;
  }
}

export function check(condition, message) {
  if (!condition) throw new CorrectnessError(message);
}

export const log = (...parts) => process.stderr.write(`  ${parts.join(' ')}\n`);

// Long-lived helper processes (servers under test, the load generator) driven over IPC.
import { execFileSync, fork } from 'node:child_process';
import os from 'node:os';

/**
 * Starts `file` as a child and waits for its `{ ready: true, ... }` message. Returns
 * `{ info, call(message) => Promise<result>, close() }`. A child that dies early rejects.
 */
export function startProcess(file, { args = [], env = {}, execArgv = [], readyTimeoutMs = 20_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env }, execArgv });
    const pending = new Map();
    let nextId = 1;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not start within ${readyTimeoutMs} ms`));
    }, readyTimeoutMs);
    child.on('message', (message) => {
      if (message.ready) {
        clearTimeout(timer);
        resolve({
          info: message,
          pid: child.pid,
          call(payload, timeoutMs = 120_000) {
            const id = nextId++;
            return new Promise((res, rej) => {
              const t = setTimeout(() => {
                pending.delete(id);
                rej(new Error(`${file}: no answer to ${JSON.stringify(payload).slice(0, 80)} within ${timeoutMs} ms`));
              }, timeoutMs);
              pending.set(id, { res, rej, t });
              child.send({ ...payload, id });
            });
          },
          close() {
            return new Promise((res) => {
              if (child.exitCode !== null || child.signalCode !== null) return res();
              child.once('exit', () => res());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 3000).unref();
            });
          },
        });
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      clearTimeout(waiter.t);
      if (message.ok) waiter.res(message.result);
      else waiter.rej(new Error(message.error));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const error = new Error(`${file} exited (${signal ?? code})`);
      for (const waiter of pending.values()) {
        clearTimeout(waiter.t);
        waiter.rej(error);
      }
      pending.clear();
      reject(error);
    });
  });
}

export const LOAD_WORKER = new URL('./load-worker.mjs', import.meta.url).pathname;

/**
 * Pins a process (every thread of it) to one CPU with `taskset`, so a server and its load generator
 * do not take turns on the same core. Answers whether it could: a machine without taskset or with
 * one core runs unpinned, and the report says so.
 */
export function pinToCpu(pid, cpu) {
  if (os.availableParallelism() < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-c', '-p', String(cpu), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal';
import { useTempDir } from './temp-dir';

/*
 * A real crash: a child process appends as fast as it can and prints each record once its append has
 * resolved; it is SIGKILLed mid-stream, then the next child (and finally this test) reopens the
 * journal it left. Whatever was printed must be there. The child runs the journal built from this
 * source by tsup (plain ESM, no loader), and compacts often, so kills also land inside compactions.
 *
 * SIGKILL loses what the process held, not what the kernel held: this proves the ordering, the torn-tail
 * recovery, the atomic compaction and the stale-lock takeover; a power loss also needs the syncs, which
 * the other tests count.
 */

const CHILD_SCRIPT = `
import { openJournal } from './journal.js';

const [dir, round] = process.argv.slice(2);
const state = [];
const { journal, records, recovery } = await openJournal({
  dir,
  compactAfterBytes: 8 * 1024,
  snapshot: () => [...state], // a copy: the snapshot is written while appends go on
  onCompactionError: (error) => { console.error(error); process.exit(3); },
});
state.push(...records);
process.stdout.write('opened ' + records.length + ' ' + recovery.tornBytesDropped + '\\n');

let next = 0;
function appendOne() {
  const n = next++;
  // Varying sizes, so a kill tears lines at every kind of offset.
  const record = { id: round + '-' + n, pad: 'x'.repeat((n * 37) % 300) };
  state.push(record); // applied before it is appended: what the snapshot contract asks
  journal.append(record).then(
    () => {
      process.stdout.write('ok ' + record.id + ' ' + journal.stats().compactions + '\\n');
      appendOne();
    },
    (error) => { console.error(error); process.exit(2); },
  );
}
for (let i = 0; i < 24; i += 1) appendOne();
`;

interface Round {
  opened: { records: number; tornBytes: number } | undefined;
  resolved: string[];
  compactions: number;
}

const tempDir = useTempDir();
let buildDir = '';

beforeAll(async () => {
  buildDir = await mkdtemp(join(tmpdir(), 'mailroom-journal-build-'));
  await build({
    entry: { journal: fileURLToPath(new URL('../../src/journal/index.ts', import.meta.url)) },
    format: ['esm'],
    outDir: buildDir,
    target: 'node20',
    config: false,
    silent: true,
    dts: false,
    sourcemap: false,
    splitting: false,
    // The child runs from a temporary directory, where no node_modules resolves the journal's errors' base class.
    noExternal: ['@mailroom/core'],
  });
  await writeFile(join(buildDir, 'child.mjs'), CHILD_SCRIPT);
});

afterAll(async () => {
  if (buildDir) await rm(buildDir, { recursive: true, force: true });
});

/** Runs one child until it reported `killAfter` resolved appends, SIGKILLs it, and reads all it printed. */
function runUntilKilled(dir: string, round: number, killAfter: number): Promise<Round> {
  const child = spawn(process.execPath, [join(buildDir, 'child.mjs'), dir, String(round)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const result: Round = { opened: undefined, resolved: [], compactions: 0 };
  let pending = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    // A line without its newline is not a complete report yet (or ever, after the kill).
    pending = lines.pop() ?? '';
    for (const line of lines) readLine(line, result);
    if (result.resolved.length >= killAfter) child.kill('SIGKILL');
  });
  return new Promise((done, fail) => {
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') done(result);
      else fail(new Error(`The child exited by itself (code ${code}): ${stderr}`));
    });
  });
}

function readLine(line: string, result: Round): void {
  const [kind, first, second] = line.split(' ');
  if (kind === 'opened') result.opened = { records: Number(first), tornBytes: Number(second) };
  if (kind === 'ok' && first !== undefined) {
    result.resolved.push(first);
    result.compactions = Math.max(result.compactions, Number(second));
  }
}

describe('a process killed mid-append', () => {
  it('loses no record whose append had resolved, across repeated SIGKILLs', async () => {
    const dir = tempDir();
    const resolvedSoFar: string[] = [];
    const rounds: Round[] = [];
    for (const [round, killAfter] of [150, 40, 333, 90, 250, 1].entries()) {
      const result = await runUntilKilled(dir, round, killAfter);
      // Every child opened what its predecessor left (torn tail, stale lock and all) and saw all of it.
      expect(result.opened?.records).toBeGreaterThanOrEqual(resolvedSoFar.length);
      resolvedSoFar.push(...result.resolved);
      rounds.push(result);
    }
    const { journal, records } = await openJournal<{ id: string }>({ dir });
    await journal.close();
    const ids = records.map((record) => record.id);
    expect(new Set(ids).size).toBe(ids.length);
    const onDisk = new Set(ids);
    expect(resolvedSoFar.filter((id) => !onDisk.has(id))).toEqual([]);
    // The kills must really have exercised compaction, or this test proves less than it claims.
    expect(rounds.some((round) => round.compactions > 0)).toBe(true);
  });
});

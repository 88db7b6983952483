import { parseArgs } from 'node:util';
import { FAULT_KINDS } from '../engine/faults';
import { DEFAULT_APP_URL, type DevServerOptions } from '../settings';
import type { FaultInput, FaultKind } from '../state/records';

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | {
      kind: 'dev';
      options: DevServerOptions;
      appUrl: string /** Where the app URL came from, said once in the banner. */;
      appUrlFrom: string;
    }
  | { kind: 'error'; message: string };

/**
 * The dev port of the framework a project uses, found by its dependencies (first match wins: a
 * SvelteKit app deployed with Wrangler still runs `vite dev`). Frameworks on port 3000 (Next.js,
 * Nuxt, NestJS, Express...) need no row.
 */
const FRAMEWORK_DEV_PORTS: ReadonlyArray<[dependency: string, name: string, port: number]> = [
  ['astro', 'Astro', 4321],
  ['@sveltejs/kit', 'SvelteKit', 5173],
  ['@react-router/dev', 'React Router', 5173],
  ['@solidjs/start', 'SolidStart', 3000],
  ['@tanstack/react-start', 'TanStack Start', 3000],
  ['nuxt', 'Nuxt', 3000],
  ['next', 'Next.js', 3000],
  ['wrangler', 'Wrangler', 8787],
  ['vite', 'Vite', 5173],
];

/** The app URL for a project with these dependencies: its framework's dev port, else the default. */
function projectAppUrl(dependencies: readonly string[]): { appUrl: string; appUrlFrom: string } {
  const found = FRAMEWORK_DEV_PORTS.find(([dependency]) => dependencies.includes(dependency));
  if (!found) return { appUrl: DEFAULT_APP_URL, appUrlFrom: 'the default; set --app-url or MAILROOM_APP_URL to change it' };
  const [dependency, name, port] = found;
  return {
    appUrl: `http://localhost:${port}`,
    appUrlFrom: `${name}'s dev port (${dependency} in package.json); set --app-url or MAILROOM_APP_URL to change it`,
  };
}

/** Printed by `--help` and after a usage error. */
export const USAGE = `Usage: mailroom dev [options]

Starts a local emulator of the messaging and management interfaces.

Options:
  --port <n>             Port of both interfaces (default 8288; 0 picks a free one)
  --host <addr>          Interface to listen on (default 127.0.0.1)
  --allowed-host <name>  Also answer requests for this host name (repeatable); loopback names
                         and IP addresses always work, other names are refused (DNS rebinding)
  --data-dir <dir>       Keep messages, URL groups, the DLQ and credentials here across restarts
                         (default: in memory, with fixed documented credentials)
  --repair-journal       Start even if records in the middle of the data directory's journal are
                         damaged: skip them, keep every intact one (skipped bytes saved aside)
  --header-prefix <p>    Header prefix, e.g. Upstash (default $MAILROOM_HEADER_PREFIX or Service)
  --issuer <name>        Issuer of delivery signatures, e.g. Upstash (default $MAILROOM_ISSUER or
                         Service); printed as MAILROOM_ISSUER for your app's receivers
  --plan <free|paid>     Plan whose limits are enforced and reported (default free)
  --region <name>        Play a region: deliveries carry <Prefix>-Region (e.g. eu-central-1)
  --time-scale <n>       Multiply every wait (delays, backoff, cron) by n, e.g. 0.01 (default 1)
  --log <text|json>      Log format (default text)
  --fault <rule>         A fault on demand from the start (repeatable): duplicate, lose-answer,
                         throttle or skew-clock, then options after a colon, e.g.
                         duplicate:to=/orders,times=2  throttle:status=503,retry-after=5s
                         skew-clock:by=-10m  (set and clear them later in the console or /dev/faults)
  --app-url <url>        Base URL of your app, printed as MAILROOM_APP_URL so client.send(def)
                         knows where to deliver (default $MAILROOM_APP_URL, else the dev port of
                         the framework in ./package.json: 5173 Vite, SvelteKit, React Router;
                         4321 Astro; 8787 Wrangler; otherwise http://localhost:3000)
  --otlp-endpoint <url>  Export a span per attempt of a traced message to this OTLP/HTTP collector,
                         e.g. http://localhost:4318 (default $OTEL_EXPORTER_OTLP_ENDPOINT; none)
  -h, --help             Show this help
`;

/**
 * Parses `mailroom dev ...` with `node:util` parseArgs. Never throws: a mistake is an `error` command
 * whose message says what to fix.
 *
 * @example parseCliArgs(['dev', '--port', '0']) // { kind: 'dev', options: { port: 0 } }
 */
export function parseCliArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  /** The dependencies (and devDependencies) in the working folder's package.json. */
  projectDependencies: readonly string[] = [],
): CliCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'allowed-host': { type: 'string', multiple: true },
        'data-dir': { type: 'string' },
        'repair-journal': { type: 'boolean' },
        'header-prefix': { type: 'string' },
        issuer: { type: 'string' },
        plan: { type: 'string' },
        log: { type: 'string' },
        region: { type: 'string' },
        'time-scale': { type: 'string' },
        'app-url': { type: 'string' },
        fault: { type: 'string', multiple: true },
        'otlp-endpoint': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) return { kind: 'help' };
  if (positionals.length !== 1 || positionals[0] !== 'dev') {
    return {
      kind: 'error',
      message:
        positionals.length === 0 ? 'missing command: use "mailroom dev"' : `unknown command "${positionals.join(' ')}": use "mailroom dev"`,
    };
  }
  const options: DevServerOptions = {};
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65_535)
      return { kind: 'error', message: `--port must be a number from 0 to 65535, got "${values.port}"` };
    options.port = Number(values.port);
  }
  if (values.plan !== undefined) {
    if (values.plan !== 'free' && values.plan !== 'paid')
      return { kind: 'error', message: `--plan must be free or paid, got "${values.plan}"` };
    options.plan = values.plan;
  }
  if (values.log !== undefined) {
    if (values.log !== 'text' && values.log !== 'json')
      return { kind: 'error', message: `--log must be text or json, got "${values.log}"` };
    options.log = values.log;
  }
  if (values['time-scale'] !== undefined) {
    const scale = Number(values['time-scale']);
    if (values['time-scale'].trim() === '' || !Number.isFinite(scale) || scale < 0)
      return { kind: 'error', message: `--time-scale must be a number >= 0, got "${values['time-scale']}"` };
    options.timeScale = scale;
  }
  if (values.region !== undefined) options.region = values.region;
  const fromEnv = env.MAILROOM_APP_URL?.trim();
  const { appUrl, appUrlFrom } =
    values['app-url'] !== undefined
      ? { appUrl: values['app-url'], appUrlFrom: '--app-url' }
      : fromEnv
        ? { appUrl: fromEnv, appUrlFrom: 'MAILROOM_APP_URL' }
        : projectAppUrl(projectDependencies);
  if (!isHttpUrl(appUrl)) {
    const source = values['app-url'] !== undefined ? '--app-url' : 'MAILROOM_APP_URL';
    return { kind: 'error', message: `${source} must be an http:// or https:// URL (the base URL of your app), got "${appUrl}"` };
  }
  if (values.host !== undefined) options.host = values.host;
  if (values['allowed-host'] !== undefined) options.allowedHosts = values['allowed-host'];
  if (values['data-dir'] !== undefined) options.dataDir = values['data-dir'];
  if (values['repair-journal']) options.repairJournal = true;
  if (values['otlp-endpoint'] !== undefined) options.otlpEndpoint = values['otlp-endpoint'];
  if (values['header-prefix'] !== undefined) options.headerPrefix = values['header-prefix'];
  if (values.issuer !== undefined) options.issuer = values.issuer;
  if (values.fault !== undefined) {
    const faults: FaultInput[] = [];
    for (const rule of values.fault) {
      const fault = parseFaultRule(rule);
      if (typeof fault === 'string') return { kind: 'error', message: fault };
      faults.push(fault);
    }
    options.faults = faults;
  }
  return { kind: 'dev', options, appUrl: appUrl.replace(/\/+$/, ''), appUrlFrom };
}

const FAULT_OPTIONS = ['to', 'times', 'status', 'retry-after', 'by'];

/** `kind[:name=value,...]` into a fault, or what is wrong with it; the service's rules check the values. */
function parseFaultRule(rule: string): FaultInput | string {
  const [kind = '', options = ''] = rule.split(/:(.*)/s);
  if (!FAULT_KINDS.includes(kind as FaultKind)) {
    return `--fault "${rule}": start with one of ${FAULT_KINDS.join(', ')}, e.g. --fault duplicate:to=/orders,times=2`;
  }
  const fault: FaultInput = { kind: kind as FaultKind };
  for (const pair of options === '' ? [] : options.split(',')) {
    const [name = '', value] = pair.split(/=(.*)/s);
    if (!FAULT_OPTIONS.includes(name) || value === undefined || value === '') {
      return `--fault "${rule}": "${pair}" is not name=value with a name among ${FAULT_OPTIONS.join(', ')}`;
    }
    const number = /^-?\d+$/.test(value) ? Number(value) : undefined;
    if ((name === 'times' || name === 'status') && number === undefined) return `--fault "${rule}": ${name} must be a whole number`;
    if (name === 'to') fault.to = value;
    else if (name === 'times') fault.times = number;
    else if (name === 'status') fault.status = number;
    else if (name === 'retry-after') fault.retryAfter = number ?? value;
    else fault.by = number ?? value;
  }
  return fault;
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

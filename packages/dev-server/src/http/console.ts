import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../errors';

// The dev console (a static page built with the package, `dist/console`) and what keeps a local
// page that can send and delete safe from the websites its user visits: only the host names the
// server listens on are answered (DNS rebinding), and no request from another origin is
// (cross-site form posts and fetches). The console itself holds no secret: it asks for the token
// the server prints, and calls the same interface every client does.

/** The console's path; `GET /` redirects here. */
export const CONSOLE_PATH = '/console/';

/**
 * What the console reads about the server it runs against (`/console/settings.json`): nothing secret.
 * The console's own code imports this type, so the two sides cannot drift.
 */
export interface ConsoleSettings {
  url: string;
  headerPrefix: string;
  issuer: string;
  plan: string;
  region: string | null;
  timeScale: number;
  /** Whether the server keeps its state in a data directory. */
  dataDir: boolean;
}

/** Which requests the server answers, by `Host` and `Origin`. */
export interface RequestGuard {
  /** Throws 400 for a malformed `Host`, 403 for a foreign host name or a foreign origin. */
  check(headers: IncomingHttpHeaders): void;
}

/**
 * Host names that cannot be rebound: loopback names, IP literals, and the names given with
 * `--allowed-host`. A DNS-rebinding page reaches the server under its own domain name, so any other
 * name is refused; a page on another origin sends its `Origin`, which must be one of ours.
 */
export function createRequestGuard(port: () => number, allowedHosts: readonly string[]): RequestGuard {
  const names = new Set(['localhost', ...allowedHosts.map((host) => host.toLowerCase())]);
  const allowedName = (hostname: string): boolean => {
    const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return names.has(bare) || isIP(bare) !== 0 || bare.endsWith('.localhost');
  };
  return {
    check(headers) {
      const host = headers.host;
      const parsed = host === undefined ? undefined : parseHost(host);
      if (host !== undefined && !parsed) {
        throw new ServiceError(
          400,
          `malformed Host header ${JSON.stringify(host)}: expected a host name or IP address, optionally with :<port>`,
        );
      }
      if (!parsed || !allowedName(parsed.hostname)) {
        throw new ServiceError(
          403,
          `host ${JSON.stringify(host ?? '')} is not one this dev server answers for (DNS rebinding protection); reach it as 127.0.0.1 or localhost, or start it with --allowed-host <name>`,
        );
      }
      const origin = headers.origin;
      const site = headers['sec-fetch-site'];
      if (site === 'cross-site') throw crossSite(String(origin ?? 'another site'));
      if (origin === undefined) return;
      // The server's own origin only: the scheme it serves, and the very host and port the request
      // was sent to (a page on 127.0.0.2 or app.localhost is another origin, though its host is allowed).
      let from: URL;
      try {
        from = new URL(origin);
      } catch {
        throw crossSite(origin);
      }
      const samePort = Number(from.port || 80) === port();
      if (from.protocol !== 'http:' || !samePort || from.hostname !== parsed.hostname.toLowerCase()) throw crossSite(origin);
    },
  };
}

function crossSite(origin: string): ServiceError {
  return new ServiceError(403, `requests from ${origin} are refused: the dev server answers only its own console and non-browser clients`);
}

// RFC 9110 Host: a registered name or IPv4 address, or an IPv6 literal in brackets, then an optional
// numeric port. Anything else (`127.0.0.1:@evil.example`, `localhost:notaport`) is no host at all.
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/;

/** A `Host` header's name (IPv6 literals keep their brackets) and port, or `undefined` when malformed. */
function parseHost(host: string): { hostname: string; port: number | undefined } | undefined {
  const match = HOST_HEADER.exec(host);
  if (!match) return undefined;
  const hostname = match[1]!;
  if (hostname.startsWith('[') && isIP(hostname.slice(1, -1)) !== 6) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65_535) return undefined;
  return { hostname, port };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
};

// What the browser may do with the console: its own scripts and styles only, no framing, no
// referrer (a token in the URL fragment never leaves anyway), no forms posting elsewhere.
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The built console, next to the running module (`dist/console`), or the package's when run from source. */
function consoleDirectory(): string | undefined {
  for (const relative of ['./console/', '../dist/console/', '../../dist/console/']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

/**
 * Serves `GET /` (a redirect), `/console/` and its assets. Answers `false` for any other path, so the
 * interface's routes handle it.
 */
export async function serveConsole(req: IncomingMessage, res: ServerResponse, settings: () => ConsoleSettings): Promise<boolean> {
  // Every request passes here first: a send (a POST) leaves before its path is split.
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path === '/') {
    res.writeHead(302, { Location: CONSOLE_PATH, 'Content-Length': '0' });
    res.end();
    return true;
  }
  if (path === '/console') {
    res.writeHead(301, { Location: CONSOLE_PATH, 'Content-Length': '0' });
    res.end();
    return true;
  }
  if (!path.startsWith(CONSOLE_PATH)) return false;
  if (path === `${CONSOLE_PATH}settings.json`) {
    const body = JSON.stringify(settings());
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...PAGE_HEADERS });
    res.end(body);
    return true;
  }
  const dir = consoleDirectory();
  if (!dir) {
    const body = 'The console is not built: run `npm run build` in @mailroom/dev-server.';
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  }
  let relative: string;
  try {
    relative = decodeURIComponent(path.slice(CONSOLE_PATH.length)) || 'index.html';
  } catch {
    throw new ServiceError(400, `malformed percent-encoding in ${JSON.stringify(path)}`);
  }
  const file = normalize(join(dir, relative));
  // Never outside the console's folder, whatever `..` or encoded separators the path holds.
  const content = file.startsWith(dir.endsWith(sep) ? dir : dir + sep) ? await readFile(file).catch(() => undefined) : undefined;
  // Unknown paths get the page itself: its views live in the URL's hash.
  const page = relative === 'index.html' || (!content && extname(relative) === '');
  const body = page ? withSettings(await readFile(join(dir, 'index.html')), settings()) : content;
  if (!body) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '9' });
    res.end('not found');
    return true;
  }
  const type = page ? TYPES['.html']! : (TYPES[extname(file)] ?? 'application/octet-stream');
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length, ...PAGE_HEADERS });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** The id of the element the page carries its settings in (the console reads them from there). */
const SETTINGS_ELEMENT = 'mailroom-settings';

/**
 * The page with its settings in it, as JSON data (not a script: the CSP lets none run inline), so
 * the console's first request is its first page of rows, not a request for its settings.
 */
function withSettings(page: Buffer, settings: ConsoleSettings): Buffer {
  const json = JSON.stringify(settings).replace(/</g, '\\u003c');
  const data = `<script type="application/json" id="${SETTINGS_ELEMENT}">${json}</script>`;
  return Buffer.from(page.toString('utf8').replace('<div id="app"></div>', `${data}<div id="app"></div>`));
}

import type { DevServer } from '../start-dev-server';
import { DEFAULT_APP_URL } from './parse-cli-args';

/**
 * The `MAILROOM_*` variables an app needs to talk to this server, one `NAME=value` per line, ready to
 * paste into a `.env`: with them alone `client.send(def, payload)` works, `MAILROOM_APP_URL` included.
 *
 * @example environmentLines(server, 'http://localhost:3000').join('\n')
 */
export function environmentLines(server: DevServer, appUrl: string = DEFAULT_APP_URL): string[] {
  return [
    `MAILROOM_APP_URL=${appUrl}`,
    `MAILROOM_URL=${server.url}`,
    `MAILROOM_TOKEN=${server.token}`,
    `MAILROOM_CURRENT_SIGNING_KEY=${server.currentSigningKey}`,
    `MAILROOM_NEXT_SIGNING_KEY=${server.nextSigningKey}`,
    `MAILROOM_MANAGEMENT_URL=${server.managementUrl}`,
    `MAILROOM_MANAGEMENT_USER=${server.managementUser}`,
    `MAILROOM_MANAGEMENT_PASSWORD=${server.managementPassword}`,
    `MAILROOM_HEADER_PREFIX=${server.headerPrefix}`,
    `MAILROOM_ISSUER=${server.issuer}`,
  ];
}

/** What `mailroom dev` prints on start: where it listens, the credentials, and the variables to paste. */
export function startBanner(server: DevServer, appUrl: string): string {
  const rows: Array<[string, string]> = [
    ['Console', server.consoleUrl],
    ['Messaging URL', server.url],
    ['Management URL', server.managementUrl],
    ['Token', server.token],
    ['Read-only token', server.readOnlyToken],
    ['Management user', server.managementUser],
    ['Management password', server.managementPassword],
    ['Current signing key', server.currentSigningKey],
    ['Next signing key', server.nextSigningKey],
    ['Header prefix', server.headerPrefix],
    ['Issuer', server.issuer],
    ['Plan', server.plan],
    ['Data', server.dataDir ?? 'in memory (use --data-dir to keep messages across restarts)'],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    'Mailroom dev server',
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
    'Environment for your app (.env):',
    '',
    ...environmentLines(server, appUrl).map((line) => `  ${line}`),
    '',
    ...serviceSdkLines(server),
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

/** With the service's prefix, the variables its own SDKs read (`@upstash/qstash`, `@upstash/workflow`). */
function serviceSdkLines(server: DevServer): string[] {
  if (server.headerPrefix !== 'Upstash') return [];
  return [
    "For the service's own SDKs (@upstash/qstash, @upstash/workflow):",
    '',
    `  QSTASH_URL=${server.url}`,
    `  QSTASH_TOKEN=${server.token}`,
    `  QSTASH_CURRENT_SIGNING_KEY=${server.currentSigningKey}`,
    `  QSTASH_NEXT_SIGNING_KEY=${server.nextSigningKey}`,
    '',
  ];
}

import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { DEV_CREDENTIALS, serviceToken } from '@mailroom/core/internal-protocol';
import type { DevState } from './state/dev-state';

/** Everything a client needs to talk to the dev server, and the keys its receivers verify with. */
export interface DevCredentials {
  /** Messaging Bearer token: may call everything. */
  token: string;
  /** Messaging Bearer token that may only GET. */
  readOnlyToken: string;
  /** Management Basic-auth user (the account e-mail). */
  managementUser: string;
  /** Management Basic-auth password (the management API key). */
  managementPassword: string;
  /** Signs every delivery (`sig_...`). */
  currentSigningKey: string;
  /** The key receivers also accept, as during a rotation (`sig_...`). */
  nextSigningKey: string;
  /** The messaging user's id (uuid), as `GET /messaging/users` answers it. */
  userId: string;
  /** Unix seconds when these credentials were made. */
  createdAt: number;
}

// The fixed credentials live in core's protocol module: dev mode (MAILROOM_DEV=1) uses the same ones.
/** Token of a dev server without a data directory. Not a secret: it only opens a local emulator. */
export const DEV_TOKEN = DEV_CREDENTIALS.token;
/** Read-only token of a dev server without a data directory. */
export const DEV_READ_ONLY_TOKEN = DEV_CREDENTIALS.readOnlyToken;
/** Management user of a dev server without a data directory. */
export const DEV_MANAGEMENT_USER = DEV_CREDENTIALS.managementUser;
/** Management password of a dev server without a data directory. */
export const DEV_MANAGEMENT_PASSWORD = DEV_CREDENTIALS.managementPassword;
/** Current signing key of a dev server without a data directory. */
export const DEV_CURRENT_SIGNING_KEY = DEV_CREDENTIALS.currentSigningKey;
/** Next signing key of a dev server without a data directory. */
export const DEV_NEXT_SIGNING_KEY = DEV_CREDENTIALS.nextSigningKey;
/** Messaging user id of a dev server without a data directory. */
export const DEV_USER_ID = DEV_CREDENTIALS.userId;

/** The fixed credentials used without a data directory, so an app's `.env` works on every start. */
export const DEFAULT_CREDENTIALS: Readonly<DevCredentials> = Object.freeze({
  token: DEV_TOKEN,
  readOnlyToken: DEV_READ_ONLY_TOKEN,
  managementUser: DEV_MANAGEMENT_USER,
  managementPassword: DEV_MANAGEMENT_PASSWORD,
  currentSigningKey: DEV_CURRENT_SIGNING_KEY,
  nextSigningKey: DEV_NEXT_SIGNING_KEY,
  userId: DEV_USER_ID,
  // 2025-01-01T00:00:00Z: fixed, so the user resource is the same on every start.
  createdAt: 1_735_689_600,
});

const FILE = 'credentials.json';

/**
 * The credentials of a data directory: read from `credentials.json`, or generated once and stored
 * there (mode 0600), so tokens and keys survive restarts. Without a directory, the fixed defaults.
 *
 * @example const credentials = await loadCredentials('./.mailroom');
 */
export async function loadCredentials(dataDir: string | undefined, now: () => number = Date.now): Promise<DevCredentials> {
  if (dataDir === undefined) return { ...DEFAULT_CREDENTIALS };
  const file = join(dataDir, FILE);
  const existing = await readCredentials(file);
  if (existing) return existing;
  const fresh = generateCredentials(now);
  await mkdir(dataDir, { recursive: true });
  await writeDurably(file, `${JSON.stringify(fresh, null, 2)}\n`);
  return fresh;
}

export function generateCredentials(now: () => number): DevCredentials {
  const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
  const userId = randomUUID();
  // The service's shape: the Workflow SDK reads the user id from the token for webhook URLs.
  return {
    token: serviceToken(userId, `dev_${secret(24)}`),
    readOnlyToken: serviceToken(userId, `dev_ro_${secret(24)}`),
    managementUser: DEV_MANAGEMENT_USER,
    managementPassword: `dev_mgmt_${secret(24)}`,
    currentSigningKey: `sig_${secret(21)}`,
    nextSigningKey: `sig_${secret(21)}`,
    userId,
    createdAt: Math.floor(now() / 1000),
  };
}

async function readCredentials(file: string): Promise<DevCredentials | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const value = JSON.parse(text) as Partial<DevCredentials>;
  const keys: Array<keyof DevCredentials> = [
    'token',
    'readOnlyToken',
    'managementUser',
    'managementPassword',
    'currentSigningKey',
    'nextSigningKey',
    'userId',
  ];
  for (const key of keys) {
    if (typeof value[key] !== 'string' || value[key] === '') {
      throw new Error(
        `${file} is damaged: "${key}" is missing. Delete the file to generate new credentials (apps will need the new ones).`,
      );
    }
  }
  return { ...(value as DevCredentials), createdAt: typeof value.createdAt === 'number' ? value.createdAt : 0 };
}

// Written to a temporary file, synced, then renamed: a crash never leaves half a credentials file,
// which would lock the user out of their own data directory.
async function writeDurably(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
}

/** The signing key pair in force: the credentials' pair until the first rotation. */
export function keysInForce(state: DevState, credentials: DevCredentials): { current: string; next: string } {
  return state.signingKeys ?? { current: credentials.currentSigningKey, next: credentials.nextSigningKey };
}

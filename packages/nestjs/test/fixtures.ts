import 'reflect-metadata';
import { defineDestination } from '@mailroom/core';
import { signRequest, type SignRequestOptions } from '@mailroom/core/testing';
import type { INestApplication, ModuleMetadata, NestApplicationOptions } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { z } from 'zod';
import { MailroomModule, type MailroomModuleExtras, type MailroomModuleOptions } from '../src';

export const keys = { currentSigningKey: 'sig_current_test_key', nextSigningKey: 'sig_next_test_key' };

/** Module settings for tests: fixed keys, and no env lookups so the machine's variables cannot leak in. */
const options: MailroomModuleOptions = { ...keys, env: {}, onError: () => {} };

export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/orders',
  schema: z.object({ orderId: z.string(), total: z.number() }),
});

/** The same destination served at another path (a route must serve its definition's path). */
export function orderPlacedAt(path: string) {
  return defineDestination({ name: 'order-placed', path, schema: orderPlaced.schema });
}

export const order = { orderId: 'o_1', total: 12.5 };

/** A delivery signed for `url`, as the service would send it. */
export async function delivery(url: string, body: unknown, extra: Partial<SignRequestOptions> = {}) {
  const { headers, body: bytes } = await signRequest({ url, body, ...keys, ...extra });
  return { headers, body: Buffer.from(bytes) };
}

export function base64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
}

/**
 * Posts a delivery's exact bytes. superagent would re-serialise a Buffer as JSON under a JSON
 * content type, which is the very thing a signature must catch, so its serialiser is bypassed.
 */
export function post(app: INestApplication, path: string, { headers, body }: { headers: Record<string, string>; body: Buffer }) {
  return request(app.getHttpServer())
    .post(path)
    .set(headers)
    .serialize((bytes: unknown) => bytes as string)
    .send(body);
}

/** Every app a test starts, closed after each test by `closeApps`. */
const started: INestApplication[] = [];

/**
 * Compiles a testing module and starts the app the way the docs tell users to: Nest 12's
 * `createNestApplication(options)` (its two-argument form takes an HTTP adapter first).
 */
export async function startApp(
  metadata: ModuleMetadata,
  appOptions: NestApplicationOptions = { rawBody: true, logger: false },
): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication(appOptions);
  started.push(app);
  await app.init();
  return app;
}

export async function closeApps(): Promise<void> {
  await Promise.all(started.splice(0).map((app) => app.close().catch(() => {})));
}

/** `MailroomModule.forRoot` with the test settings, plus `overrides`. */
export function mailroom(overrides: MailroomModuleOptions & MailroomModuleExtras = {}) {
  return MailroomModule.forRoot({ ...options, ...overrides });
}

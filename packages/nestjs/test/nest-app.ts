import 'reflect-metadata';
import { receiverOptions } from '@mailroom/test-support';
import type { INestApplication, ModuleMetadata, NestApplicationOptions } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { MailroomModule, type MailroomModuleExtras, type MailroomModuleOptions } from '../src';

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
  return MailroomModule.forRoot({ ...receiverOptions, ...overrides });
}

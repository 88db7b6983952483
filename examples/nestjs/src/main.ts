import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { appModule } from './app.module';

// Each message handled once however often it is delivered (one instance: memory; several: Redis or
// Postgres), and a trace from send to handler once an OpenTelemetry SDK is started (docs/tracing.md).
const mailroom = { idempotency: createMemoryStore(), tracing: openTelemetry() };
// rawBody: true keeps the exact bytes the signature covers; the module checks it at start-up.
const app = await NestFactory.create(appModule(mailroom), { rawBody: true });
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
// The port it got: PORT=0 picks a free one.
const { port } = app.getHttpServer().address() as { port: number };
console.log(`example-nestjs listening on http://127.0.0.1:${port} (POST /orders, /callbacks, /failures; GET /events)`);

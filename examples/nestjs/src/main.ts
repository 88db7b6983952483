import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { appModule } from './app.module';

// rawBody: true keeps the exact bytes the signature covers; the module checks it at start-up.
const app = await NestFactory.create(appModule(), { rawBody: true });
await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
// The port it got: PORT=0 picks a free one.
const { port } = app.getHttpServer().address() as { port: number };
console.log(`example-nestjs listening on http://127.0.0.1:${port} (POST /orders, /callbacks, /failures; GET /events)`);

import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { appModule } from './app.module';

// rawBody: true keeps the exact bytes the signature covers; the module checks it at start-up.
const app = await NestFactory.create(appModule(), { rawBody: true });
const port = Number(process.env.PORT ?? 3000);
await app.listen(port, '127.0.0.1');
console.log(`example-nestjs listening on http://127.0.0.1:${port} (POST /orders, /callbacks, /failures; GET /events)`);

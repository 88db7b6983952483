import 'reflect-metadata';
import { createMessagingClient } from '@mailroom/core';
import { NestFactory } from '@nestjs/core';
import { AppModule, MisroutedModule } from './app.module';
import { orderPlaced } from './destinations';
import { received } from './orders.controller';

async function main() {
  const port = Number(new URL(process.env.MAILROOM_APP_URL!).port);
  const app = await NestFactory.create(AppModule, { rawBody: true, logger: ['error', 'warn'] });
  await app.listen(port, '127.0.0.1');
  await createMessagingClient().send(orderPlaced, { orderId: 'nest-1' });
  for (let waited = 0; received.length === 0 && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  await app.close();

  let startupError: { name: string; message: string } | undefined;
  const misrouted = await NestFactory.create(MisroutedModule, { rawBody: true, logger: false });
  try {
    await misrouted.init();
  } catch (error) {
    startupError = { name: (error as Error).name, message: (error as Error).message };
  }
  await misrouted.close();
  console.log(`REPORT ${JSON.stringify({ received, startupError })}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

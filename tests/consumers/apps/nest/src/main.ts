import 'reflect-metadata';
import { createMessagingClient } from '@mailroom/core';
import { NestFactory } from '@nestjs/core';
import { AppModule, MisroutedModule } from './app.module';
import { orderPlaced } from './destinations';
import { received } from './orders.controller';

async function main() {
  const app = await NestFactory.create(AppModule, { rawBody: true, logger: ['error', 'warn'] });
  // PORT=0 binds a free port; the dev server delivers to the public MAILROOM_APP_URL in front of it.
  await app.listen(Number(process.env.PORT ?? new URL(process.env.MAILROOM_APP_URL!).port), '127.0.0.1');
  console.log(`listening on http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`);
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

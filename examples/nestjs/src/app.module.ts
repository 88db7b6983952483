import { Module, type DynamicModule } from '@nestjs/common';
import { MailroomModule, type MailroomModuleOptions } from '@mailroom/nestjs';
import { EventLog } from './events';
import { OrdersController } from './orders.controller';

/** Settings left out come from MAILROOM_* variables (signing keys, URL, token). */
export function appModule(options: MailroomModuleOptions = {}): DynamicModule {
  return {
    module: AppModule,
    imports: [MailroomModule.forRoot({ isGlobal: true, ...options })],
    controllers: [OrdersController],
    providers: [EventLog],
  };
}

@Module({})
export class AppModule {}

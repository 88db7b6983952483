import { Module } from '@nestjs/common';
import { MailroomModule } from '@mailroom/nestjs';
import { MisroutedController, OrdersController } from './orders.controller';

@Module({ imports: [MailroomModule.forRoot({ isGlobal: true })], controllers: [OrdersController] })
export class AppModule {}

@Module({ imports: [MailroomModule.forRoot({ isGlobal: true })], controllers: [MisroutedController] })
export class MisroutedModule {}

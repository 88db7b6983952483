import { MailroomExplorer } from './explorer';
import { SignatureGuard } from './guard';
import { MailroomExceptionFilter } from './refusal';
import {
  ConfigurableModuleClass,
  MAILROOM_MANAGEMENT_CLIENT,
  MAILROOM_MESSAGING_CLIENT,
  MAILROOM_RECEIVER,
  MAILROOM_MODULE_OPTIONS,
  checkOptions,
  managementClientProvider,
  messagingClientProvider,
  receiverProvider,
  type MailroomModuleExtras,
  type MailroomModuleOptions,
} from './providers';
import { Module, type ConfigurableModuleAsyncOptions, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';

/**
 * Mailroom for Nest: the messaging (and management) client as injectable providers, and the
 * receiver behind `@OnMessage`, `@OnCallback`, `@OnFailureCallback` and `SignatureGuard`.
 * Misconfiguration (no signing key, a body parser that loses the raw body, a malformed route)
 * fails `app.init()` rather than the first delivery.
 *
 * The module that declares Mailroom routes must import it, or set `isGlobal: true`.
 *
 * @example
 * @Module({
 *   imports: [MailroomModule.forRoot({ isGlobal: true, currentSigningKey, nextSigningKey, token })],
 *   controllers: [OrdersController],
 * })
 * export class AppModule {}
 *
 * const app = await NestFactory.create(AppModule, { rawBody: true });
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    receiverProvider,
    messagingClientProvider,
    managementClientProvider,
    SignatureGuard,
    MailroomExceptionFilter,
    MailroomExplorer,
  ],
  exports: [
    MAILROOM_MODULE_OPTIONS,
    MAILROOM_RECEIVER,
    MAILROOM_MESSAGING_CLIENT,
    MAILROOM_MANAGEMENT_CLIENT,
    SignatureGuard,
    MailroomExceptionFilter,
  ],
})
export class MailroomModule extends ConfigurableModuleClass {
  /**
   * Configures the module with options known when the module is declared. Settings left out
   * come from `MAILROOM_*` variables.
   *
   * @example
   * MailroomModule.forRoot({ isGlobal: true, currentSigningKey: 'sig_...', nextSigningKey: 'sig_...', publicUrl: 'https://app.example.com' })
   */
  static override forRoot(options: MailroomModuleOptions & MailroomModuleExtras = {}): DynamicModule {
    // biome-ignore lint/complexity/noThisInStatic: `super` is Nest's generated module class, which this one extends
    return super.forRoot(checkOptions(options, 'MailroomModule.forRoot'));
  }

  /**
   * Configures the module from a factory, e.g. reading `ConfigService`. `isGlobal` stays outside
   * the factory because Nest must know it before the factory runs.
   *
   * @example
   * MailroomModule.forRootAsync({
   *   isGlobal: true,
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({ currentSigningKey: config.get('SIGNING_KEY'), token: config.get('TOKEN') }),
   * })
   */
  static override forRootAsync(options: ConfigurableModuleAsyncOptions<MailroomModuleOptions> & MailroomModuleExtras): DynamicModule {
    // biome-ignore lint/complexity/noThisInStatic: as in forRoot
    return super.forRootAsync(options);
  }
}

import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MailroomModuleExtras, MailroomModuleOptions } from './mailroom-module-options';

/**
 * `forRoot` / `forRootAsync` from Nest's builder, with `isGlobal` as an extra so it is known even
 * when the options themselves come from an async factory.
 */
export const { ConfigurableModuleClass, MODULE_OPTIONS_TOKEN } = new ConfigurableModuleBuilder<MailroomModuleOptions>({
  optionsInjectionToken: 'MAILROOM_MODULE_OPTIONS',
})
  .setClassMethodName('forRoot')
  .setExtras<MailroomModuleExtras>({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal === true }))
  .build();

/** Injection token of the resolved `MailroomModuleOptions`. */
export const MAILROOM_MODULE_OPTIONS = MODULE_OPTIONS_TOKEN;

// @mailroom/nestjs: a module with injectable clients, a guard that verifies deliveries over their raw
// bytes, and decorators for typed handlers. Every piece moves bytes between Nest and the core pipeline.

export { MailroomModule } from './mailroom-module';
export { MAILROOM_MODULE_OPTIONS } from './mailroom-module-definition';
export type { MailroomModuleExtras, MailroomModuleOptions, MessagingTransportOptions } from './mailroom-module-options';
export { MAILROOM_MANAGEMENT_CLIENT, MAILROOM_MESSAGING_CLIENT, MAILROOM_RECEIVER } from './tokens';
export { InjectManagementClient, InjectMessagingClient } from './inject-client';
export { SignatureGuard } from './signature-guard';
export { MailroomExceptionFilter } from './mailroom-exception-filter';
export { MailroomRefusal } from './mailroom-refusal';
export { MailroomSetupError } from './mailroom-setup-error';
export { OnCallback, OnFailureCallback, OnMessage } from './route-decorators';
export { ReceivedMessage, type ReceivedMessageKey } from './received-message';
export type { ResponseSchema, Schema, SourceSchema } from './schema-types';

// One definition for the sender and this receiver, importable from the Nest package alone.
export { defineDestination } from '@mailroom/core';

// The types a handler annotates its message with, so one import serves a controller.
export type {
  BodyOf,
  CallbackMessage,
  CallbackOptions,
  DecodedBody,
  FailureCallbackMessage,
  ManagementClient,
  MessagingClient,
} from '@mailroom/core';

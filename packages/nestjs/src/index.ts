// @mailroom/nestjs: a module with injectable clients, a guard that verifies deliveries over their raw
// bytes, and decorators for typed handlers. Every piece moves bytes between Nest and the core pipeline.

export { MailroomModule } from './module';
export { MAILROOM_MODULE_OPTIONS } from './providers';
export type { MailroomModuleExtras, MailroomModuleOptions, MessagingTransportOptions } from './providers';
export { MAILROOM_MANAGEMENT_CLIENT, MAILROOM_MESSAGING_CLIENT, MAILROOM_RECEIVER } from './providers';
export { InjectManagementClient, InjectMessagingClient } from './providers';
export { SignatureGuard } from './guard';
export { MailroomExceptionFilter, MailroomRefusal } from './refusal';
export { MailroomSetupError } from './explorer';
export { OnCallback, OnFailureCallback, OnMessage } from './decorators';
export { ReceivedMessage, type ReceivedMessageKey } from './decorators';
export type { ResponseSchema, Schema, SourceSchema } from './metadata';

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

import {
  ConfigError,
  createManagementClient,
  createMessagingClient,
  createReceiver,
  type ManagementClient,
  type MessagingClient,
  type Receiver,
  type InboundRequest,
  type ReceiveStage,
  type ReceiverOptions,
} from '@mailroom/core';
import { resolveHeaderPrefix } from '@mailroom/core/protocol';
import { Logger, type Provider } from '@nestjs/common';
import { MODULE_OPTIONS_TOKEN } from './mailroom-module-definition';
import { checkOptions as checkShape } from './check-options';
import type { MailroomModuleOptions } from './mailroom-module-options';
import { unconfiguredManagementClient, unconfiguredMessagingClient } from './unconfigured-client';
import { MAILROOM_MANAGEMENT_CLIENT, MAILROOM_MESSAGING_CLIENT, MAILROOM_RECEIVER } from './tokens';

/** The receiver: created once, so keys and limits are checked when the app starts. */
export const receiverProvider: Provider<Receiver> = {
  provide: MAILROOM_RECEIVER,
  useFactory: (options: MailroomModuleOptions) => createReceiver(receiverOptions(options)),
  inject: [MODULE_OPTIONS_TOKEN],
};

export const messagingClientProvider: Provider<MessagingClient> = {
  provide: MAILROOM_MESSAGING_CLIENT,
  useFactory: (options: MailroomModuleOptions) => messagingClient(options),
  inject: [MODULE_OPTIONS_TOKEN],
};

export const managementClientProvider: Provider<ManagementClient> = {
  provide: MAILROOM_MANAGEMENT_CLIENT,
  useFactory: (options: MailroomModuleOptions) => managementClient(options),
  inject: [MODULE_OPTIONS_TOKEN],
};

function receiverOptions(options: MailroomModuleOptions): ReceiverOptions {
  // The clients' settings stay out, so the receiver sees only its own.
  const {
    baseUrl: _baseUrl,
    token: _token,
    appUrl: _appUrl,
    messaging: _messaging,
    management: _management,
    ...receiver
  } = checkOptions(options);
  return { ...receiver, onError: receiver.onError ?? logThroughNest };
}

const logger = new Logger('Mailroom');

/** The receiver's reports in Nest's own log, one line each, never a stack or a key. */
function logThroughNest(error: unknown, { stage, request }: { stage: ReceiveStage; request?: InboundRequest }): void {
  // Missing keys at creation: the start-up checks fail the app with that message when it has
  // Mailroom routes, and a send-only app needs no keys, so there is nothing to log here.
  if (!request) return;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (stage === 'handler') logger.error(`handler failed: ${message}`);
  else logger.warn(`request refused at ${stage}: ${message}`);
}

function messagingClient(options: MailroomModuleOptions): MessagingClient {
  const { baseUrl, token, appUrl, messaging, headerPrefix, env } = checkOptions(options);
  try {
    return createMessagingClient({ ...messaging, baseUrl, token, appUrl, headerPrefix, env });
  } catch (error) {
    // Settings given in code mean "I want to send": a missing one is a mistake to report now. With
    // none given, this app may only receive, and must boot without a token it never uses.
    const explicit = baseUrl !== undefined || token !== undefined || messaging !== undefined;
    if (!(error instanceof ConfigError) || explicit) throw error;
    return unconfiguredMessagingClient(error, resolveHeaderPrefix(headerPrefix, env));
  }
}

function managementClient(options: MailroomModuleOptions): ManagementClient {
  const { management, env } = checkOptions(options);
  try {
    return createManagementClient({ env, ...management });
  } catch (error) {
    if (!(error instanceof ConfigError) || management !== undefined) throw error;
    return unconfiguredManagementClient(error);
  }
}

// Reached with forRootAsync's factory result, which no type check has seen.
function checkOptions(options: MailroomModuleOptions): MailroomModuleOptions {
  return checkShape(options, 'The MailroomModule options factory');
}

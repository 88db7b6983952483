import type { ConfigError, ManagementClient, MessagingClient } from '@mailroom/core';

const UNCONFIGURED = Symbol.for('@mailroom/nestjs.unconfigured');

/**
 * Stands in for a client whose settings are missing, so an app that only receives (or only sends)
 * boots without settings it never uses. Every call throws the core's `ConfigError`, which names the
 * option and the variable; the start-up checks fail earlier when a class injects it.
 *
 * A plain object rather than a Proxy: Nest probes every provider for lifecycle hooks
 * (`onModuleInit` ...), and a Proxy that throws on any property would crash that probe.
 */
export function unconfiguredMessagingClient(error: ConfigError, headerPrefix: string): MessagingClient {
  const fail = (): never => {
    throw error;
  };
  const client: MessagingClient = {
    enqueue: fail,
    enqueueJSON: fail,
    send: fail,
    urlGroups: { list: fail, addEndpoints: fail, removeEndpoints: fail },
    workflowDlq: { list: fail, iterate: fail, retriggerFailureCallback: fail },
    headerPrefix,
  };
  return mark(client, error);
}

/** Like {@link unconfiguredMessagingClient}, for the management interface. */
export function unconfiguredManagementClient(error: ConfigError): ManagementClient {
  const fail = (): never => {
    throw error;
  };
  return mark({ users: fail, stats: fail, searchIndexes: { create: fail, get: fail } }, error);
}

/** The reason a client is a stand-in, or `undefined` for a real client. */
export function unconfiguredReason(client: unknown): ConfigError | undefined {
  return typeof client === 'object' && client !== null ? (client as { [UNCONFIGURED]?: ConfigError })[UNCONFIGURED] : undefined;
}

function mark<T extends object>(client: T, error: ConfigError): T {
  Object.defineProperty(client, UNCONFIGURED, { value: error });
  return client;
}

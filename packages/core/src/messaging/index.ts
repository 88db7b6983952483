export { createMessagingClient, type MessagingClient, type MessagingClientOptions } from './create-messaging-client';
export type { EnqueueRequest, EnqueueResponse, EnqueueResult } from './enqueue';
export type { ApiDestination, UrlDestination } from './destination';
export type { SendOptions } from './send';
export type { EndpointRef, NewEndpoint } from './url-groups';
export type { WorkflowDlqFilter, WorkflowDlqPage } from './workflow-dlq';

export { createMessagingClient, type MessagingClient, type MessagingClientOptions } from './create-messaging-client';
export type { EnqueueRequest, EnqueueResponse, EnqueueResult } from './enqueue';
export type { ApiDestination, UrlDestination } from './destination';
export type { SendOptions } from './send';
export type { EndpointRef, NewEndpoint } from './url-groups';
export type { WorkflowDlqFilter, WorkflowDlqPage } from './workflow-dlq';
// The types of the `transport` client option, for anyone writing their own.
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from '../http';

export { createReceiver, type Endpoint, type HandledResponse, type MessageHandler, type Receiver } from './create-receiver';
export type { InboundRequest, OutboundResponse } from './inbound-request';
export type { ReceivedMessage } from './received-message';
export type { ReceiverOptions, ReceiveStage } from './receiver-options';
export { DEFAULT_MAX_BODY_BYTES } from './receiver-options';
export type { CallbackMessage, CallbackOptions, DecodedBody, FailureCallbackMessage, SchemaOutput } from './callback-message';
export { NON_RETRYABLE_STATUS } from './error-response';
export { readWebRequest, toWebResponse } from './read-web-request';
export { isJsonContentType } from './parse-body';

// @mailroom/core/testing: sign requests like the service does, to test your own handlers.
export { signRequest, createSignedRequest, type SignRequestOptions, type SignedDelivery } from './sign-request';

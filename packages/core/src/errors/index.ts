export { MailroomError } from './mailroom-error';
export { ConfigError } from './config-error';
export { ValidationError } from './validation-error';
export { RetryDelaySyntaxError } from './retry-delay-syntax-error';
export { ApiError, AuthError, NotFoundError, PlanLimitError, RateLimitError, type RateLimitKind } from './api-error';
export { NetworkError } from './network-error';
export { ResponseValidationError } from './response-validation-error';
export { SignatureError, type SignatureFailure } from './signature-error';
export { NonRetryableError, RetryAfterError } from './handler-errors';

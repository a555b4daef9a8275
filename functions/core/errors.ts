/**
 * One error type per failure kind. Use cases throw these; the HTTP layer maps them to a status
 * in one place (functions/http/error-mapping.ts) and the MCP layer to `isError` results.
 */
export abstract class ServiceError extends Error {
  abstract readonly kind: ServiceErrorKind;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type ServiceErrorKind =
  | 'bad_request'
  | 'unauthorized'
  | 'payment_required'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'not_implemented';

export class BadRequestError extends ServiceError {
  readonly kind = 'bad_request';
}
export class UnauthorizedError extends ServiceError {
  readonly kind = 'unauthorized';
}
export class PaymentRequiredError extends ServiceError {
  readonly kind = 'payment_required';
}
export class ForbiddenError extends ServiceError {
  readonly kind = 'forbidden';
}
export class NotFoundError extends ServiceError {
  readonly kind = 'not_found';
}
export class MethodNotAllowedError extends ServiceError {
  readonly kind = 'method_not_allowed';
}
export class ConflictError extends ServiceError {
  readonly kind = 'conflict';
}
export class PayloadTooLargeError extends ServiceError {
  readonly kind = 'payload_too_large';
}
export class UnsupportedMediaTypeError extends ServiceError {
  readonly kind = 'unsupported_media_type';
}
export class TooManyRequestsError extends ServiceError {
  readonly kind = 'too_many_requests';
}
export class NotImplementedError extends ServiceError {
  readonly kind = 'not_implemented';
}

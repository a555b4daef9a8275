import { ZodError } from 'zod';
import { ServiceError, type ServiceErrorKind } from '../core/errors';
import { formatZodError } from '../core/validation';

const STATUS_BY_KIND: Record<ServiceErrorKind, number> = {
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  not_implemented: 501,
};

export interface MappedError {
  statusCode: number;
  message: string;
  /** False for 5xx: the message is generic and the real error must be logged. */
  expected: boolean;
}

/** The one place where failures become HTTP statuses. */
export function mapError(error: unknown, requestId: string): MappedError {
  if (error instanceof ServiceError) {
    return { statusCode: STATUS_BY_KIND[error.kind], message: error.message, expected: true };
  }
  if (error instanceof ZodError) {
    return { statusCode: 400, message: formatZodError(error), expected: true };
  }
  return { statusCode: 500, message: `Internal error (request id ${requestId}).`, expected: false };
}

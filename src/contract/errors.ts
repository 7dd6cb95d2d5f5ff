import { z } from 'zod';

/**
 * The closed catalogue of error codes (contract.md §1). Every non-2xx response carries one of
 * these; anything unexpected becomes `internal` with the cause logged under the request id.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  command_not_allowed: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  invalid_state: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  host_not_allowed: 421,
  validation_failed: 422,
  headers_too_large: 431,
  internal: 500,
  sandbox_disabled: 503,
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Codes a retry can cure; the envelope says so, so clients need no table of their own. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['overloaded', 'internal', 'request_timeout']);

export interface Issue {
  path: string;
  message: string;
}

/**
 * The one error type the domain throws. HTTP maps it to the envelope; the SDK rebuilds it as
 * ApiError; workflows turn it into a non-retryable ApplicationFailure when a retry cannot help.
 */
export class LoreError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, retryable?: boolean) {
    super(message);
    this.name = 'LoreError';
    this.code = code;
    this.details = details;
    this.retryable = retryable ?? RETRYABLE.has(code);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what: string, id: string, scope: string, details: Record<string, unknown> = {}) =>
  new LoreError('not_found', `${what} '${id}' does not exist in scope '${scope}'`, details);

export const invalidState = (message: string, state: string, details: Record<string, unknown> = {}) => new LoreError('invalid_state', message, { state, ...details });

export const ErrorEnvelope = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    retryable: z.boolean(),
  }),
  request_id: z.string(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

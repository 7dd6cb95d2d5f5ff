import type { z } from 'zod';
import { TOO_LARGE } from '../contract/common';
import { ERROR_STATUS, LoreError, type ErrorCode, type ErrorEnvelope, type Issue } from '../contract/errors';
import { otherIssues, unknownKeyIssues } from '../contract/keys';

export function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(body)', message: i.message }));
}

/**
 * zod failure → invalid_request (wrong types, missing fields, bad enums: every issue listed),
 * payload_too_large when only size limits were broken, and validation_failed when the request
 * parses but a closed object (a patch, filter, graph part or options) has keys it does not know:
 * each such issue names the key and the accepted ones. `schema` is the route's input, from which
 * the accepted keys are read.
 */
export function fromZodError(error: z.ZodError, schema?: z.ZodType): LoreError {
  const unknown = schema ? unknownKeyIssues(error, schema) : [];
  const rest = otherIssues(error);
  if (unknown.length > 0 && rest.length === 0) {
    const first = unknown[0]!;
    const more = unknown.length > 1 ? ` (and ${unknown.length - 1} more)` : '';
    return new LoreError('validation_failed', `${first.message}${more}`, { issues: unknown });
  }
  const issues = schema ? [...rest, ...unknown] : issuesOf(error);
  const tooLarge = error.issues.filter((i) => i.code === 'custom' && (i.params as { lore?: string } | undefined)?.lore === TOO_LARGE);
  if (tooLarge.length > 0 && tooLarge.length === error.issues.length) {
    return new LoreError('payload_too_large', `field over its size limit: ${issues.map((i) => i.path).join(', ')}`, { issues });
  }
  const first = issues[0];
  const summary = first ? `${first.path}: ${first.message}` : 'invalid request';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new LoreError('invalid_request', `${summary}${more}`, { issues });
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
}

/** Fastify's own errors (body parsing, limits, media type) mapped onto the catalogue. */
export function fromFastifyError(err: FastifyLikeError, bodyLimit: number): LoreError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new LoreError('payload_too_large', `request body is larger than ${bodyLimit} bytes (LORE_BODY_LIMIT)`, { limit_bytes: bodyLimit });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new LoreError('invalid_request', `request body is not valid JSON: ${err.message}`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new LoreError('unsupported_media_type', 'request bodies must be JSON: send content-type: application/json', { accepted: ['application/json'] });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new LoreError('invalid_request', 'content-length does not match the body');
  }
  if (err instanceof SyntaxError) return new LoreError('invalid_request', `request body is not valid JSON: ${err.message}`);
  const status = err.statusCode ?? 500;
  if (status === 413) return new LoreError('payload_too_large', err.message);
  if (status >= 400 && status < 500) return new LoreError('invalid_request', err.message);
  return null;
}

export function envelope(err: LoreError, requestId: string): ErrorEnvelope {
  return {
    error: { code: err.code, message: err.message, details: err.details, retryable: err.retryable },
    request_id: requestId,
  };
}

export function internalError(): LoreError {
  return new LoreError('internal', 'internal error; the cause is logged under this request id');
}

export const statusOf = (code: ErrorCode) => ERROR_STATUS[code];

import { ApplicationFailure, CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { ERROR_CODES, LoreError, type ErrorCode } from '../contract/errors';

const CODES = new Set<string>(ERROR_CODES);

/** Activities and workflows throw LoreError; Temporal carries it as an ApplicationFailure whose type is the code. */
export function toApplicationFailure(err: unknown): unknown {
  if (err instanceof LoreError) {
    return ApplicationFailure.create({
      type: err.code,
      message: err.message,
      details: [err.details],
      nonRetryable: !err.retryable,
    });
  }
  return err;
}

/** Walks a failure's cause chain back to the LoreError it started as, if any. */
export function fromFailure(err: unknown): LoreError | null {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 10; depth += 1) {
    if (cur instanceof LoreError) return cur;
    if (cur instanceof ApplicationFailure && cur.type && CODES.has(cur.type)) {
      const details = (cur.details?.[0] ?? {}) as Record<string, unknown>;
      return new LoreError(cur.type as ErrorCode, cur.message, details);
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return null;
}

/** A short reason for metrics and run records: cancelled, terminated, timed_out, or failed. */
export function failureKind(err: unknown): 'cancelled' | 'terminated' | 'timed_out' | 'failed' {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 10; depth += 1) {
    if (cur instanceof CancelledFailure) return 'cancelled';
    if (cur instanceof TerminatedFailure) return 'terminated';
    if (cur instanceof TimeoutFailure) return 'timed_out';
    cur = (cur as { cause?: unknown }).cause;
  }
  return 'failed';
}

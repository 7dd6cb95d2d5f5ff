import { ApplicationFailure } from '@temporalio/workflow';
import type { ApprovalInfo } from '../../src/model/automation/records';

/** A node failure with the code and message the run record shows. */
export class NodeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly output?: unknown,
    /** An approval node's decision (a rejection, a timeout), recorded with the failure. */
    readonly approval?: ApprovalInfo,
  ) {
    super(message);
  }
}

/** The innermost message of a Temporal failure chain (the cause a person wants to read). */
export function causeOf(err: unknown): { code: string; message: string } {
  if (err instanceof NodeFailure) return { code: err.code, message: err.message };
  let cur: unknown = err;
  let last: { code: string; message: string } = { code: 'failed', message: String((err as Error)?.message ?? err) };
  for (let i = 0; cur && i < 10; i++) {
    if (cur instanceof ApplicationFailure) last = { code: cur.type ?? 'failed', message: cur.message };
    cur = (cur as { cause?: unknown }).cause;
  }
  return last;
}

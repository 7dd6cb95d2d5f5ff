import type { RouteInput } from '../../contract';
import type { delegationRoutes } from '../../contract/families/delegation';
import { DELEGATION_STATUSES } from '../../model/delegation/vocabulary';

type WriteInput = RouteInput<(typeof delegationRoutes)['delegation.write']>;
type Status = (typeof DELEGATION_STATUSES)[number];

/**
 * The form existing clients write (route_role, summary, delegation_records_v1 {route_role,
 * delegation_packets, delegation_returns}) read into Lore's record fields. Lore's own fields win
 * when both are given; what has no field of its own (the packets themselves, handoff_anchor,
 * task_family) is kept in metadata, so nothing the caller sent is dropped.
 */

/** Return statuses of that form, as delegation statuses. Unknown words leave the status alone. */
const RETURN_STATUS: Record<string, Status> = {
  passed: 'completed',
  success: 'completed',
  succeeded: 'completed',
  done: 'completed',
  complete: 'completed',
  blocked: 'failed',
  failure: 'failed',
  error: 'failed',
  running: 'in_progress',
};

function returnStatus(word: string | undefined): Status | undefined {
  if (!word) return undefined;
  const w = word.toLowerCase();
  if ((DELEGATION_STATUSES as readonly string[]).includes(w)) return w as Status;
  return Object.hasOwn(RETURN_STATUS, w) ? RETURN_STATUS[w] : undefined;
}

export interface NormalisedDelegation {
  to_agent: string;
  task: string;
  status: Status;
  result: string | null;
  target_files: string[];
  metadata: Record<string, unknown>;
}

export function normaliseDelegation(input: WriteInput): NormalisedDelegation {
  const d = input.delegation_records_v1;
  const packet = d?.delegation_packets?.[0];
  const back = d?.delegation_returns?.[0];
  const workingSet = [...new Set((d?.delegation_packets ?? []).flatMap((p) => p.working_set ?? []))];
  const metadata: Record<string, unknown> = { ...(input.metadata ?? {}) };
  if (d) metadata.delegation_records_v1 = d;
  if (input.handoff_anchor) metadata.handoff_anchor = input.handoff_anchor;
  if (input.task_family) metadata.task_family = input.task_family;
  return {
    // The contract refuses a request where neither is given.
    to_agent: (input.to_agent ?? input.route_role ?? d?.route_role ?? packet?.role)!,
    task: (input.task ?? input.summary ?? input.input_text ?? input.title ?? packet?.mission)!,
    status: input.status ?? returnStatus(back?.status) ?? 'requested',
    result: input.result ?? back?.summary ?? null,
    target_files: input.target_files ?? workingSet,
    metadata,
  };
}

import type { Issue } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import type { Graph, GraphNode } from '../../model/automation/graph';

/**
 * What the automation family needs from the replay family to check playbook nodes before a run:
 * whether the named version exists in the scope and can run unattended (strict mode) with the
 * node's inputs as its parameters. Implemented over ReplayServices in replay-link.ts.
 */
export interface PlaybookCatalog {
  /** Every reason the node's playbook cannot run; paths relative to the node (e.g. "inputs.branch"). */
  issues(ref: ScopeRef, node: GraphNode): Promise<Issue[]>;
  /** The host step a playbook run (by its replay run key) waits for, or null. */
  hostWait?(ref: ScopeRef, runKey: string): Promise<{ replay_run_id: string; step_index: number; tool_name: string; waiting_since: string; reported: boolean } | null>;
}

/** The issues of every playbook node, with paths into the request. */
export async function checkPlaybooks(catalog: PlaybookCatalog | null, ref: ScopeRef, graph: Graph, paths?: Map<string, string>): Promise<Issue[]> {
  if (!catalog) return [];
  const issues: Issue[] = [];
  for (const [i, n] of graph.nodes.entries()) {
    if (n.kind !== 'playbook' || !n.playbook_id || n.version === undefined) continue;
    const at = paths?.get(n.node_id) ?? `graph.nodes[${i}]`;
    for (const issue of await catalog.issues(ref, n)) issues.push({ path: `${at}.${issue.path}`, message: issue.message });
  }
  return issues;
}

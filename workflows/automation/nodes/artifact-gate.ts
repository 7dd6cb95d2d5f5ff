import { ancestorsOf, type GraphNode } from '../../../src/model/automation/graph';
import { checks } from '../activities';
import { NodeFailure } from '../failure';
import type { AutomationRun } from '../run';

/**
 * An artifact gate: asks an activity whether the named files exist in the sandbox runs of the
 * playbook nodes upstream (or of the node an artifact names); fails listing what is missing.
 */
export async function checkArtifactGate(run: AutomationRun, node: GraphNode): Promise<void> {
  const { input, st } = run;
  const upstream = ancestorsOf(node.node_id, st.incoming);
  const producers = [...upstream].filter((id) => run.byId.get(id)?.kind === 'playbook' && st.stateOf(id) === 'succeeded');
  const r = await checks.automationCheckArtifacts({
    tenant_id: input.tenant_id,
    scope: input.scope,
    checks: (node.artifacts ?? []).map((a) => ({
      path: a.path,
      from_node: a.from_node ?? null,
      sources: (a.from_node ? [a.from_node] : producers).map((id) => ({ node_id: id, sandbox_run_ids: run.sandboxRuns.get(id) ?? [] })),
    })),
  });
  if (r.missing.length > 0) {
    const list = r.missing.map((m) => `${m.path}${m.from_node ? ` (from ${m.from_node})` : ''}`).join(', ');
    throw new NodeFailure('artifact_missing', `missing artifact${r.missing.length > 1 ? 's' : ''}: ${list}`, { found: r.found, missing: r.missing });
  }
  st.set(node.node_id, 'succeeded', { output: { artifacts: r.found } });
}

import type { Database } from '../../store/database';
import type { ScopeRef } from '../../store/scope';
import { SandboxArtifacts, SandboxRuns } from '../../store/sandbox/index';
import type { ArtifactCheck, ArtifactCheckResult, ArtifactFound } from './run-types';

/** Both spellings find a file: paths are relative to artifacts/, and commands write "artifacts/x". */
export function artifactPathCandidates(path: string): string[] {
  const p = path.replace(/^\.\//, '');
  return p.startsWith('artifacts/') ? [p, p.slice('artifacts/'.length)] : [p];
}

/**
 * Artifact gates look for each expected file among the files the upstream playbook nodes' sandbox
 * runs wrote under artifacts/ (the sandbox stores them with the run when it ends). Reads the
 * sandbox family's store in the same tenant+scope; a run or file in another scope is never found.
 */
export async function findArtifacts(db: Database, ref: ScopeRef, checks: ArtifactCheck[]): Promise<ArtifactCheckResult> {
  const runs = new SandboxRuns(db, ref);
  const files = new SandboxArtifacts(db, ref);
  const runKeys = new Map<string, string | null>();
  const keyOf = async (runId: string) => {
    if (!runKeys.has(runId)) runKeys.set(runId, (await runs.get(runId))?._id ?? null);
    return runKeys.get(runId)!;
  };
  const found: ArtifactFound[] = [];
  const missing: ArtifactCheckResult['missing'] = [];
  for (const check of checks) {
    const paths = artifactPathCandidates(check.path);
    let hit: ArtifactFound | null = null;
    const searched: string[] = [];
    // Latest first: when several runs wrote the file, the last one counts.
    outer: for (const source of [...check.sources].reverse()) {
      for (const runId of [...source.sandbox_run_ids].reverse()) {
        searched.push(runId);
        const key = await keyOf(runId);
        if (!key) continue;
        const docs = await files.list(key, paths);
        const doc = paths.map((p) => docs.find((d) => d.path === p)).find((d) => d !== undefined);
        if (doc) {
          hit = { path: check.path, node_id: source.node_id, sandbox_run_id: runId, size: doc.size, sha256: doc.sha256 };
          break outer;
        }
      }
    }
    if (hit) found.push(hit);
    else missing.push({ path: check.path, from_node: check.from_node, searched_runs: searched });
  }
  return { found, missing };
}

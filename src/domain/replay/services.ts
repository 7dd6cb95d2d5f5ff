import { LoreError, type Issue } from '../../contract/errors';
import type { ScopeRef } from '../../store/scope';
import { replayStores, type ReplayCtx } from './context';
import { pendingStepOf } from './views';
import { startPlaybookRun } from './execute';
import type { LearningFeed } from './learning-feed';
import { getReplayRun } from './get-run';
import { planIssues, planOf } from './plan';
import { getPlaybook } from './playbooks';
import { runnableVersion } from './playbook-runs';
import type { Json, RunMode } from '../../model/replay/types';
import { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId } from './workflow-types';

export type { PlaybookRunInput, PlaybookRunResult, PlaybookStepResult } from './workflow-types';
export { PLAYBOOK_RUN_WORKFLOW, playbookRunWorkflowId } from './workflow-types';

type PlaybookGet = Awaited<ReturnType<typeof getPlaybook>>;
type RunGet = Awaited<ReturnType<typeof getReplayRun>>;

/**
 * What the replay family offers other families (automation). A workflow that runs a playbook
 * starts `playbookRunWorkflow` as a child (workflow-types.ts has the input, the result and an
 * example); these services are for the API side: checking a graph's playbook nodes, starting a
 * run outside a workflow, reading runs. docs/replay.md, "For other families".
 */
export interface ReplayServices {
  /** A playbook version (latest when version is null) as playbooks/get shows it; null when it does not exist. */
  getPlaybook(ref: ScopeRef, playbookId: string, version?: number | null): Promise<PlaybookGet | null>;
  /**
   * Whether a version (null: the active one) can run in a mode with these params, without running
   * it: the version that would run and every issue (empty when it can). Never throws for a
   * missing playbook or version: that is an issue too.
   */
  checkRunnable(ref: ScopeRef, req: { playbook_id: string; version?: number | null; mode: RunMode; params?: Json }): Promise<{ version: number | null; issues: Issue[] }>;
  /** Starts a playbook run (like dispatch) and returns at once; poll getRun. */
  startRun(
    ref: ScopeRef,
    req: { playbook_id: string; version?: number | null; mode: RunMode; params?: Json; run_id?: string; goal?: string; metadata?: Json },
    actor: string,
  ): Promise<{ run_id: string; workflow_id: string; version: number; created: boolean }>;
  /** A replay run with its steps as replay/runs/get shows it (not_found when it does not exist). */
  getRun(ref: ScopeRef, runId: string): Promise<RunGet['run']>;
  /** The host step a playbook run (by its server key, as in its workflow id) waits for; null when none. */
  pendingHostStep(ref: ScopeRef, runKey: string): Promise<{ replay_run_id: string; step_index: number; tool_name: string; waiting_since: string; reported: boolean } | null>;
  /** The workflow type and id scheme of playbook runs, for starting one as a child workflow. */
  readonly workflow: { type: typeof PLAYBOOK_RUN_WORKFLOW; workflowIdOf: typeof playbookRunWorkflowId };
}

export function createReplayServices(c: ReplayCtx, feed: LearningFeed): ReplayServices {
  return {
    async getPlaybook(ref, playbookId, version) {
      try {
        return await getPlaybook(c, ref, { playbook_id: playbookId, version: version ?? undefined });
      } catch (err) {
        if (err instanceof LoreError && err.code === 'not_found') return null;
        throw err;
      }
    },
    async checkRunnable(ref, req) {
      try {
        const { doc } = await runnableVersion(c, ref, req.playbook_id, req.version);
        return { version: doc.version, issues: planIssues(planOf(doc, req.params ?? {}), req.mode) };
      } catch (err) {
        if (!(err instanceof LoreError) || err.retryable) throw err;
        return { version: null, issues: [{ path: 'playbook_id', message: err.message }] };
      }
    },
    async startRun(ref, req, actor) {
      const s = await startPlaybookRun(
        c,
        ref,
        { playbook_id: req.playbook_id, version: req.version ?? undefined, mode: req.mode, params: req.params ?? {}, run_id: req.run_id, goal: req.goal, metadata: req.metadata },
        'automation',
        actor,
      );
      return { run_id: s.run.run_id, workflow_id: s.workflowId, version: s.doc.version, created: s.created };
    },
    async getRun(ref, runId) {
      return (await getReplayRun(c, feed, ref, { run_id: runId, include_steps: true })).run;
    },
    async pendingHostStep(ref, runKey) {
      const { runs, steps } = replayStores(c.db, ref);
      const run = await runs.getByKey(runKey);
      if (!run || run.state !== 'open') return null;
      const p = pendingStepOf(run, await steps.list(run._id));
      return p ? { replay_run_id: run.run_id, step_index: p.step_index, tool_name: p.tool_name, waiting_since: p.waiting_since, reported: p.reported } : null;
    },
    workflow: { type: PLAYBOOK_RUN_WORKFLOW, workflowIdOf: playbookRunWorkflowId },
  };
}

import type { ScopeRef } from '../../store/scope';
import type { LearningCtx } from './context';
import { distill, promoteWorkflowsForPlaybook } from './distill';
import type { RemoteFollower } from './remote';
import { replayObservation, replaySourceId, type ReplayEpisode } from './replay';
import type { GoalVectors } from './vectors';

/** What the learning family offers other families. */
export interface LearningServices {
  /**
   * Feeds one replay run into workflow learning as a `replay_learning_episode` observation
   * (contract.md §6: a successful run of a promoted playbook). Idempotent per run_id. Returns the
   * workflows created or changed.
   */
  recordReplayEpisode(ref: ScopeRef, episode: ReplayEpisode, actor: string): Promise<{ workflows_updated: string[] }>;
  /**
   * A playbook version changed status. On `active`, every workflow that observed a run of the
   * playbook, or whose provenance holds its source run (`source_run_id`, as fed through
   * recordReplayEpisode), becomes stable (stable_reason playbook_active); distillation_origin is
   * kept. Other statuses change nothing. Returns the workflows changed.
   */
  playbookStatusChanged(
    ref: ScopeRef,
    p: { playbook_id: string; status: string; source_run_id?: string | null; source_node_ids?: string[] },
  ): Promise<{ workflows_updated: string[] }>;
  /** Resolves when background work (goal embeddings) queued so far is done: for tests and benchmarks. */
  idle(): Promise<void>;
  /** How task similarity is computed: with dense goal vectors, or lexical only (and why, when embeddings were configured but are unusable). */
  similarity(): { dense: boolean; provider: string; problem: string | null };
  /** Diagnostics: scopes loaded, and the follower of other processes' writes (its watermark, holes, nodes it loaded). */
  stats(): {
    scopes_loaded: number;
    follower: ReturnType<RemoteFollower['statsOf']> | null;
    /** Goal embeddings: texts the encoder ran, vectors read back from the vector cache, workflows waiting (null without an encoder). */
    goal_vectors: ReturnType<GoalVectors['stats']> | null;
  };
}

/** The services, over the family's context; the runtime answers for its own state (idle, similarity, stats). */
export function createLearningServices(ctx: LearningCtx, runtime: Pick<LearningServices, 'idle' | 'similarity' | 'stats'>): LearningServices {
  const { distillDeps } = ctx;
  return {
    async recordReplayEpisode(ref, episode, actor) {
      const obs = replayObservation(episode);
      if (!obs) return { workflows_updated: [] };
      const state = await ctx.scope(ref);
      state.noteTools(obs.steps.map((s) => s.tool));
      return { workflows_updated: await distill(distillDeps, ref, state, obs, actor) };
    },
    async playbookStatusChanged(ref, p) {
      if (p.status !== 'active') return { workflows_updated: [] };
      const state = await ctx.scope(ref);
      const sources = [...(p.source_run_id ? [replaySourceId(p.source_run_id)] : []), ...(p.source_node_ids ?? [])];
      return {
        workflows_updated: await promoteWorkflowsForPlaybook(distillDeps, ref, state, { playbook_id: p.playbook_id, source_ids: sources, at: ctx.clock.now().toISOString() }),
      };
    },
    idle: runtime.idle,
    similarity: runtime.similarity,
    stats: runtime.stats,
  };
}

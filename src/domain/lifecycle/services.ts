import type { ForgettingSummary } from '../../contract/shapes/forgetting';
import type { ScopeRef } from '../../store/scope';
import type { NodeKind, NodeType, Tier } from '../../model/memory/node';
import type { LifecycleCtx } from './context';
import { readRelocation, readSemantic, type Action, type LifecycleState, type PayloadScope, type RelocationState } from './slots';
import { within } from '../turn';
import { buildingSummary, buildSummary } from './summary';

/**
 * What the lifecycle family offers other families (learning's planning and execution summaries
 * and its evolution review pack). All of it is served from the in-process forgetting view after
 * one indexed catch-up query, plus indexed lookups of the few nodes returned: no scans.
 */
export interface LifecycleServices {
  /** The scope's forgetting summary (planning_summary / execution_summary .forgetting_summary). */
  forgettingSummary(ref: ScopeRef): Promise<ForgettingSummary>;
  /**
   * Nodes whose latest decision is `review` (contested feedback, or important but stale), for
   * the evolution review pack. At most `limit` (default 20).
   */
  reviewCandidates(ref: ScopeRef, opts?: { limit?: number }): Promise<ReviewCandidate[]>;
  /**
   * Archived nodes matching `query` by title and summary (the only text an archived node is
   * searchable by), best first: what planning offers as rehydration candidates instead of
   * injecting archived memory. `kinds` narrows (e.g. ['workflow']); default limit 5.
   */
  rehydrationCandidates(ref: ScopeRef, query: string, opts?: { kinds?: NodeKind[]; limit?: number }): Promise<RehydrationCandidate[]>;
  /** Ids (and kinds) of the scope's archived nodes, most recently archived first; for filtering without a query. */
  archivedNodes(ref: ScopeRef, opts?: { kinds?: NodeKind[]; limit?: number }): Promise<{ id: string; kind: NodeKind | null }[]>;
  /** Whether a node is archived (from the view; cheap, for filtering lists of node ids). */
  isArchived(ref: ScopeRef, id: string): Promise<boolean>;
  /** How forgetting stands for these nodes (from the view): latest action, lifecycle and relocation state; unknown ids are left out. */
  nodeForgetting(ref: ScopeRef, ids: string[]): Promise<Map<string, NodeForgetting>>;
  /** Samples now the counts of every scope that changed (the recorder does this every minute); returns how many. */
  recordHistory(): Promise<number>;
}

// Type aliases (not interfaces) so callers may widen them to Record<string, unknown>-style schemas.
export type NodeForgetting = { tier: Tier; action: Action | null; lifecycle_state: LifecycleState; relocation_state: RelocationState; decided: boolean };

export type ReviewCandidate = {
  id: string;
  client_id: string | null;
  type: NodeType;
  kind: NodeKind | null;
  tier: Tier;
  title: string | null;
  summary: string;
  lifecycle_state: LifecycleState;
  retention_score: number;
  rationale: string[];
  decided_at: string;
};

export type RehydrationCandidate = {
  id: string;
  client_id: string | null;
  type: NodeType;
  kind: NodeKind | null;
  title: string | null;
  summary: string;
  /** Recall score of the summary match (0 when listed without a query). */
  score: number;
  archived_at: string | null;
  payload_scope: PayloadScope;
  payload_bytes: number | null;
  /** Anchored workflow memory: `differential` payload rehydration applies. */
  differential_available: boolean;
  /** A one-line description for prompts. */
  line: string;
  /** The call that brings it back. */
  rehydrate: { route: '/v1/memory/archive/rehydrate'; ids: string[]; target_tier: 'warm' };
};

export function createLifecycleServices(c: LifecycleCtx): Omit<LifecycleServices, 'recordHistory'> {
  const tally = async (ref: ScopeRef) => {
    await c.view.sync();
    return c.view.tally(ref);
  };
  /**
   * The tally for a task start, which must not wait seconds: undefined while the view's start-up
   * build (a scan of every node's state) runs past LORE_BUILD_WAIT after it began.
   */
  const tallySoon = async (ref: ScopeRef) => {
    if (c.view.readiness().status !== 'building') return tally(ref);
    const done = await within(tally(ref), c.view.buildWaitLeft(c.buildWaitMs));
    return done ? done.value : undefined;
  };
  return {
    async forgettingSummary(ref) {
      const [t, state] = await Promise.all([tallySoon(ref), c.states.get(ref)]);
      return t === undefined ? buildingSummary(state, c.view.readiness().detail) : buildSummary(t, state);
    },

    async reviewCandidates(ref, opts = {}) {
      const t = await tally(ref);
      if (!t || t.review.size === 0) return [];
      const ids = c.view.reviewIds(ref, opts.limit ?? 20);
      // What a candidate shows comes from the node and its decision slot, never from access statistics.
      const nodes = await c.memory.nodes(ref).getMany(ids, { access: false });
      return nodes.flatMap((n) => {
        const sem = readSemantic(n.slots);
        if (!sem || sem.action !== 'review') return [];
        return [
          {
            id: n.id,
            client_id: n.client_id,
            type: n.type,
            kind: n.kind,
            tier: n.tier,
            title: n.title,
            summary: n.summary,
            lifecycle_state: sem.lifecycle_state,
            retention_score: sem.retention_score,
            rationale: sem.rationale,
            decided_at: sem.decided_at,
          },
        ];
      });
    },

    async rehydrationCandidates(ref, query, opts = {}) {
      const t = await tallySoon(ref);
      if (t === null) return []; // no node of this scope seen
      if (t && t.tiers.archive === 0) return [];
      // While the view builds (t undefined), a query still finds archived nodes through recall; a list needs the tally.
      if (!t && query.trim() === '') return [];
      const limit = opts.limit ?? 5;
      let hits: { id: string; score: number }[];
      if (query.trim() === '' && t) {
        hits = c.view.archivedList(ref, opts.kinds, limit).map(({ id }) => ({ id, score: 0 }));
      } else {
        const r = await c.memory.recall(ref, { text: query, limit, tiers: ['archive'], kinds: opts.kinds });
        hits = r.hits.map((h) => ({ id: h.node.id, score: h.score }));
      }
      const nodes = await c.memory.nodes(ref).getMany(
        hits.map((h) => h.id),
        { access: false },
      );
      const score = new Map(hits.map((h) => [h.id, h.score]));
      return nodes
        .filter((n) => n.tier === 'archive')
        .map((n) => {
          const rel = readRelocation(n.slots);
          const payloadScope = rel?.payload_scope ?? 'none';
          const what = n.kind ?? n.type;
          return {
            id: n.id,
            client_id: n.client_id,
            type: n.type,
            kind: n.kind,
            title: n.title,
            summary: n.summary,
            score: score.get(n.id) ?? 0,
            archived_at: rel?.relocated_at ?? null,
            payload_scope: payloadScope,
            payload_bytes: rel?.payload_bytes ?? null,
            differential_available: payloadScope === 'anchor_payload',
            line: `archived ${what}: ${n.title ?? n.summary} (rehydrate ${n.client_id ?? n.id} to use it)`,
            rehydrate: { route: '/v1/memory/archive/rehydrate' as const, ids: [n.id], target_tier: 'warm' as const },
          };
        });
    },

    async archivedNodes(ref, opts = {}) {
      await c.view.sync();
      return c.view.archivedList(ref, opts.kinds, opts.limit ?? 100);
    },

    async isArchived(ref, id) {
      await c.view.sync();
      return c.view.isArchived(ref, id);
    },

    async nodeForgetting(ref, ids) {
      const out = new Map<string, NodeForgetting>();
      if (ids.length === 0 || (await tallySoon(ref)) === undefined) return out;
      for (const id of ids) {
        const k = c.view.classOf(ref, id);
        if (k) out.set(id, { tier: k.tier, action: k.action, lifecycle_state: k.state, relocation_state: k.relocationState, decided: k.decided });
      }
      return out;
    },
  };
}

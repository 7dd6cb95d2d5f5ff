import type { memoryRoutes } from '../../contract/families/memory';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from './context';
import { nodeUri } from './uri';

type In<K extends keyof typeof memoryRoutes> = RouteInput<(typeof memoryRoutes)[K]>;

/** memory.recall_text: ranked hits for a text query, with their score breakdown. */
export async function recallText(m: MemoryServices, ref: ScopeRef, input: In<'memory.recallText'>) {
  const text = (input.query_text ?? input.query)!;
  const r = await m.recall(ref, {
    text,
    limit: input.limit,
    types: input.types,
    kinds: input.kinds,
    tiers: input.tiers,
    tags: input.tags,
    include_archived: input.include_archived,
    include_retired: input.include_retired,
    min_score: input.min_score,
    record_access: input.record_access,
  });
  return {
    results: r.hits.map((h) => ({
      id: h.node.id,
      uri: nodeUri(ref, h.node.id),
      client_id: h.node.client_id,
      type: h.node.type,
      kind: h.node.kind,
      tier: h.node.tier,
      archived: h.node.tier === 'archive',
      retired: h.retired,
      title: h.node.title,
      text: h.node.text,
      summary: h.node.summary,
      tags: h.node.tags,
      score: h.score,
      score_breakdown: h.breakdown,
      created_at: h.node.created_at,
      updated_at: h.node.updated_at,
    })),
    query: { text, strategy: r.strategy, limit: input.limit, vector_error: r.vector_error },
    took_ms: r.took_ms,
  };
}

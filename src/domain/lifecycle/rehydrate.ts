import { LoreError } from '../../contract/errors';
import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import { TIERS, type Tier } from '../../model/memory/node';
import type { LifecycleCtx } from './context';
import { feedbackState } from './decide';
import { POLICY_VERSION } from './policy';
import { retentionScore } from './score';
import { selectNodes } from './select';
import { RELOCATION_SLOT, SEMANTIC_SLOT, basisOf, decisionHistory, noRelocation, payloadRelocated, readRelocation, readSemantic } from './slots';
import type { SemanticForgettingV1 } from '../../model/lifecycle/slots';
import type { RehydrateTargetTier } from '../../model/lifecycle/vocabulary';

/**
 * archive/rehydrate (contract.md §4): bring nodes back to a warm or hot tier, restoring an
 * archived payload from the cold store byte for byte (the store checks the sha256 recorded when
 * it was relocated). Never moves a node colder: a hot node asked to be warm stays hot. The cold
 * copy stays where it is (nothing is deleted); archiving the same revision again reuses it.
 */

export interface RehydrateItem {
  id: string;
  client_id: string | null;
  from_tier: Tier;
  to_tier: Tier;
  payload_restored: boolean;
  payload_bytes: number | null;
  detail: string | null;
}

const hotter = (a: Tier, b: Tier): Tier => (TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b);
const ATTEMPTS = 3;

async function rehydrateOne(c: LifecycleCtx, ref: ScopeRef, first: StoredNode, target: Tier, reason: string | undefined, marker: string): Promise<RehydrateItem> {
  let node: StoredNode | null = first;
  for (let attempt = 0; attempt < ATTEMPTS && node; attempt += 1) {
    const now = c.clock.now();
    const at = now.toISOString();
    const rel = readRelocation(node.slots);
    const relocated = rel?.relocation_state === 'cold_archive' && rel.cold_key !== null;
    const to = hotter(node.tier, target);
    const item: RehydrateItem = { id: node.id, client_id: node.client_id, from_tier: node.tier, to_tier: to, payload_restored: false, payload_bytes: null, detail: null };
    let text: string | undefined;
    if (relocated && !payloadRelocated(node)) {
      item.detail = `rewritten (revision ${node.revision}) after revision ${rel!.revision} was archived: the current content stays`;
    } else if (relocated) {
      text = (await c.cold.getText(ref, rel!.cold_key!)) ?? undefined;
      if (text === undefined) {
        // E.g. a node imported from a pack without its cold-store payload: leave it archived, say why.
        return { ...item, to_tier: node.tier, detail: `the relocated payload (${rel!.cold_key}) is not in this scope's cold store; the node stays archived` };
      }
      item.payload_restored = true;
      item.payload_bytes = Buffer.byteLength(text, 'utf8');
    } else {
      item.detail = node.tier === 'archive' ? 'the payload was never relocated; it is on the node' : 'not archived: the payload is on the node';
    }
    if (to === node.tier && !relocated) return item; // nothing to change

    const sem: SemanticForgettingV1 = {
      action: 'retain',
      current_tier: node.tier,
      target_tier: to,
      lifecycle_state: feedbackState(node.feedback),
      retention_score: retentionScore(node, now).score,
      rationale: [`rehydrated ${node.tier} → ${to} on request${reason ? `: ${reason}` : ''}`],
      decided_at: at,
      run_id: marker,
      tier_changed_at: to === node.tier ? (readSemanticTierSince(node) ?? at) : at,
      policy: POLICY_VERSION,
      basis: basisOf(node, to),
      history: decisionHistory(readSemantic(node.slots)),
    };
    const set: Record<string, unknown> = { tier: to, [`slots.${SEMANTIC_SLOT}`]: sem };
    if (rel) set[`slots.${RELOCATION_SLOT}`] = { ...noRelocation(), rehydrated_at: at };
    if (text !== undefined) set.text = text;
    const updated = await c.memory.nodes(ref).update(node.id, { set }, now, { expectRevision: node.revision });
    if (updated) {
      c.memory.indexed([updated]); // this process's recall sees the restored payload at once
      return item;
    }
    node = await c.memory.nodes(ref).get(node.id); // rewritten meanwhile: decide again on the new revision
  }
  if (!node) throw new LoreError('conflict', `node '${first.id}' disappeared while it was being rehydrated`, { id: first.id });
  throw new LoreError('conflict', `node '${first.id}' kept changing while it was being rehydrated; try again`, { id: first.id }, true);
}

function readSemanticTierSince(node: StoredNode): string | null {
  const s = node.slots[SEMANTIC_SLOT] as { tier_changed_at?: unknown } | undefined;
  return typeof s?.tier_changed_at === 'string' ? s.tier_changed_at : null;
}

export async function rehydrateArchived(
  c: LifecycleCtx,
  ref: ScopeRef,
  input: { ids?: string[]; client_ids?: string[]; target_tier: RehydrateTargetTier; reason?: string },
  requestId: string,
): Promise<{ nodes: RehydrateItem[]; not_found: string[] }> {
  // With access statistics: the decision it writes (retention score, basis) counts them, as the
  // operator's decisions do.
  const { found, not_found } = await selectNodes(c.memory.nodes(ref), input);
  const items: RehydrateItem[] = [];
  for (const n of found) items.push(await rehydrateOne(c, ref, n, input.target_tier, input.reason, `rehydrate:${requestId}`));
  const restored = items.filter((i) => i.payload_restored).length;
  if (restored > 0) {
    await c.states.increment(ref, { archive_rehydrations: restored, 'rehydration_mode_counts.full': restored }, c.clock.now().toISOString());
  }
  return { nodes: items, not_found };
}

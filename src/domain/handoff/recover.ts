import { notFound } from '../../contract/errors';
import type { handoffRoutes } from '../../contract/families/handoff';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from '../memory/context';
import { handoffKey, handoffView, historyView } from './views';

/** The handoff of an anchor (or by id), with its earlier revisions when asked. */
export async function recoverHandoff(m: MemoryServices, ref: ScopeRef, input: RouteInput<(typeof handoffRoutes)['handoff.recover']>) {
  const nodes = m.nodes(ref);
  const n = input.anchor !== undefined ? await nodes.getByClientId(handoffKey(input.anchor)) : await nodes.get(input.handoff_id!);
  if (!n || n.kind !== 'handoff') {
    const what = input.anchor !== undefined ? { anchor: input.anchor } : { handoff_id: input.handoff_id };
    throw notFound(input.anchor !== undefined ? 'handoff for anchor' : 'handoff', (input.anchor ?? input.handoff_id)!, ref.scope, what);
  }
  const history = input.include_history ? (await nodes.revisionsOf(n.id)).reverse().map(historyView) : [];
  return { handoff: handoffView(n), history };
}

import type { memoryRoutes } from '../../contract/families/memory';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { MemoryServices } from './context';
import { writeResultView } from './views';
import { itemsFromWrite } from './write-request';

type In<K extends keyof typeof memoryRoutes> = RouteInput<(typeof memoryRoutes)[K]>;

/** memory.write: the request's nodes and edges written in one batch. */
export async function writeNodes(m: MemoryServices, ref: ScopeRef, input: In<'memory.write'>, actor: string) {
  const { items, edges, warnings } = itemsFromWrite(input);
  const r = await m.write(ref, actor, items, edges, { source: 'memory.write', warnings });
  return { deduplicated: r.nodes.every((n) => n.outcome === 'deduplicated'), ...writeResultView(r, ref) };
}

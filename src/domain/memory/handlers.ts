import type { memoryRoutes } from '../../contract/families/memory';
import type { Handlers } from '../../contract/handlers';
import { scopeRef } from '../../store/scope';
import { findNodes, resolveNode } from './find-resolve';
import { recallText } from './recall-text';
import type { MemoryServices } from './context';
import { writeNodes } from './write-nodes';

const refOf = (ctx: { tenant_id: string; scope: string }) => scopeRef(ctx.tenant_id, ctx.scope);

/** One handler per memory core route (write, recall_text, find, resolve); each is a thin call into the operation's module. */
export function createMemoryHandlers(m: MemoryServices): Handlers<typeof memoryRoutes> {
  return {
    'memory.write': (input, ctx) => writeNodes(m, refOf(ctx), input, ctx.actor),
    'memory.recallText': (input, ctx) => recallText(m, refOf(ctx), input),
    'memory.find': (input, ctx) => findNodes(m, refOf(ctx), input),
    'memory.resolve': (input, ctx) => resolveNode(m, refOf(ctx), input),
  };
}

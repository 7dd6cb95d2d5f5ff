import type { memoryRoutes } from '../../contract/families/memory';
import type { Handlers } from '../../contract/handlers';
import { refOf } from '../../store/scope';
import { findNodes, resolveNode } from './find-resolve';
import { recallText } from './recall-text';
import type { MemoryServices } from './context';
import { writeNodes } from './write-nodes';

/** One handler per memory core route (write, recall_text, find, resolve); each is a thin call into the operation's module. */
export function createMemoryHandlers(m: MemoryServices): Handlers<typeof memoryRoutes> {
  return {
    'memory.write': (input, ctx) => writeNodes(m, refOf(ctx), input, ctx.actor),
    'memory.recallText': (input, ctx) => recallText(m, refOf(ctx), input),
    'memory.find': (input, ctx) => findNodes(m, refOf(ctx), input),
    'memory.resolve': (input, ctx) => resolveNode(m, refOf(ctx), input),
  };
}

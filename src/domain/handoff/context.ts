import type { MemoryServices } from '../memory/context';

/** What the handoff routes use: a handoff is a memory node, so memory's services are all it needs. */
export interface HandoffCtx {
  memory: MemoryServices;
}

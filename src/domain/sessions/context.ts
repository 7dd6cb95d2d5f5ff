import type { Clock } from '../../model/clock';
import type { MemoryServices } from '../memory/context';

/** What the sessions routes use: sessions and their events are memory nodes, stamped with the clock. */
export interface SessionsCtx {
  memory: MemoryServices;
  clock: Clock;
}

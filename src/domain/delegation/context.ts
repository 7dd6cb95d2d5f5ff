import type { DelegationStore } from '../../store/delegation/records';
import type { Clock } from '../../model/clock';

/** What the delegation routes use (built once in module.ts). */
export interface DelegationCtx {
  store: DelegationStore;
  clock: Clock;
}

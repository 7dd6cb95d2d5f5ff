import { writeAndReadProbe } from '../src/store/system/probes';
import type { ActivityDeps } from './deps';

/** Activities of the system family: a probe that proves worker → MongoDB works. */
export function createSystemActivities(deps: ActivityDeps) {
  return {
    /** The activity half of the engine round trip. */
    async probeStore(probeId: string): Promise<{ probe_id: string; stored_at: string }> {
      return { probe_id: probeId, stored_at: await writeAndReadProbe(deps.db, probeId, deps.clock.now()) };
    },
  };
}

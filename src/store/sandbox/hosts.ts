import type { IsolationKind, MemoryLimit, WorkspaceView } from '../../model/sandbox/records';
import { type Database, defineCollection } from '../database';

export const hostsCollection = defineCollection({ name: 'sandbox_hosts', indexes: [] });

/**
 * What the worker polling a task queue found about sandbox isolation on its host. Workers write
 * it at start; the API reads it for session records and /health, so the API process never has to
 * run sandbox commands itself (only the worker does, in its own uid range).
 */
export interface SandboxHostReport {
  /** The task queue. */
  _id: string;
  enabled: boolean;
  setting: 'auto' | 'bubblewrap' | 'none';
  /** The isolation sessions get: the setting applied to what the probe found. */
  in_force: IsolationKind | 'unavailable';
  bubblewrap_version: string | null;
  uid_isolation: boolean;
  memory_limit: MemoryLimit;
  detail: string | null;
  /**
   * How workspaces are seen on this worker: through an overlay (its probe mounted one), or a copy
   * (workspace_detail says why). Absent in reports of workers from before overlays: copy.
   */
  workspace_view?: WorkspaceView;
  workspace_detail?: string | null;
  sandbox_dir: string;
  sandbox_dir_problem: string | null;
  hostname: string;
  pid: number;
  reported_at: string;
}

/** Runtime status, not tenant data: keyed by task queue, outside any tenant+scope. */
export class SandboxHosts {
  constructor(private readonly db: Database) {}

  async put(report: SandboxHostReport): Promise<void> {
    await this.db.raw<SandboxHostReport>(hostsCollection).replaceOne({ _id: report._id } as never, report as never, { upsert: true });
  }

  async get(taskQueue: string): Promise<SandboxHostReport | null> {
    return (await this.db.raw<SandboxHostReport>(hostsCollection).findOne({ _id: taskQueue } as never)) as SandboxHostReport | null;
  }
}

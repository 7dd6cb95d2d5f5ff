import type { Config, Role } from '../config';
import type { SandboxStatus } from '../domain/sandbox/status';
import type { Clock } from '../model/clock';
import type { Engine } from '../engine/engine';
import type { Log } from '../log';
import type { Database } from '../store/database';
import type { Telemetry } from '../telemetry/types';
import type { DependencyMode } from '../model/system/vocabulary';

/** What the running process knows about the services it uses (for /health and the banner). */
export interface RuntimeInfo {
  role: Role;
  startedAt: number;
  dataDir: string | null;
  temporal: { mode: DependencyMode; address: string; namespace: string; uiUrl: string | null };
  mongo: { mode: DependencyMode; address: string; database: string };
}

/** Extra engine facts /health reads (implemented by TemporalEngine). */
export interface EngineProbe {
  serverVersion(): Promise<string | null>;
  pollerCount(): Promise<number>;
}

/**
 * What the API process is assembled from. Built once per process by main.ts (or by a test). The
 * families get a part of it: FamilyDeps and their own settings (src/app/modules.ts).
 */
export interface AppDeps {
  config: Config;
  log: Log;
  clock: Clock;
  db: Database;
  engine: Engine;
  engineProbe: EngineProbe;
  runtime: RuntimeInfo;
  sandboxStatus: () => Promise<SandboxStatus>;
  /** Tracing, when on (src/telemetry); null or absent when off. */
  telemetry?: Telemetry | null;
}

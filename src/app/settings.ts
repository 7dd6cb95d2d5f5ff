import type { Config } from '../config';
import type { LearningSettings } from '../domain/learning/context';
import type { LifecycleSettings } from '../domain/lifecycle/context';
import type { MemorySettings } from '../domain/memory/context';
import type { ReplaySettings } from '../domain/replay/context';
import type { SandboxSettings } from '../domain/sandbox/context';

/**
 * Each family's settings, taken from the process's Config: the domain never sees the whole Config
 * (docs/design.md, "One shape for every family"). A family without settings has no entry.
 */
export interface FamilySettings {
  memory: MemorySettings;
  lifecycle: LifecycleSettings;
  learning: LearningSettings;
  sandbox: SandboxSettings;
  replay: ReplaySettings;
}

export function familySettings(config: Config): FamilySettings {
  return {
    memory: { embeddings: config.embeddings, indexSnapshots: config.indexSnapshots, dataDir: config.dataDir },
    lifecycle: { buildWaitMs: config.buildWaitMs, indexSnapshots: config.indexSnapshots, dataDir: config.dataDir },
    learning: { buildWaitMs: config.buildWaitMs, embeddings: { provider: config.embeddings.provider, explicit: config.embeddings.explicit } },
    sandbox: { sandbox: config.sandbox, temporal: { taskQueue: config.temporal.taskQueue } },
    replay: { sandbox: config.sandbox, temporal: { taskQueue: config.temporal.taskQueue }, replay: config.replay },
  };
}

import type { CollectionSpec } from '../database';
import { artifactsCollection } from './artifacts';
import { hostsCollection } from './hosts';
import { logsCollection } from './logs';
import { runsCollection } from './runs';
import { sessionsCollection } from './sessions';
import { workspaceBlobsCollection, workspaceDiffsCollection } from './workspace-diffs';

export { SandboxSessions, SandboxSessionsOnHost } from './sessions';
export { SandboxRuns, hasOpenRun, type RunPatch } from './runs';
export { SandboxLogs } from './logs';
export { SandboxArtifacts } from './artifacts';
export { SandboxHosts, type SandboxHostReport } from './hosts';
export { SandboxWorkspaceDiffs } from './workspace-diffs';

/** Collections of the sandbox family (indexes are created at start). */
export const sandboxCollections: CollectionSpec[] = [
  sessionsCollection,
  runsCollection,
  logsCollection,
  artifactsCollection,
  hostsCollection,
  workspaceDiffsCollection,
  workspaceBlobsCollection,
];

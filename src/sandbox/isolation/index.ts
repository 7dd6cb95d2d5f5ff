export { configureBwrap, detectIsolation, runIsolated } from './detect';
export { isShell, SandboxSpecError, IsolationUnavailableError, resolveLimits } from './run';
export { prepareWorkdir, withWorkdirLock, workdirName, SANDBOX_WORKDIR, ARTIFACTS_DIR, type PreparedWorkdir } from './workdir';
export { syncWorkspace, workspaceManifestPath, MAX_WORKSPACE_ENTRIES, type SyncResult, type WorkspaceOwner } from './workspace';
export { configureIdRange, livePidsOfUid, type IdRange } from './ids';
export type {
  IsolationInfo,
  IsolationKind,
  LimitName,
  OutputStream,
  RunHooks,
  RunIsolationReport,
  RunLimits,
  RunOutcome,
  RunSpec,
  RunStatus,
} from './types';
export { listArtifacts, readArtifact, type ArtifactEntry, type ArtifactListing } from './artifacts';

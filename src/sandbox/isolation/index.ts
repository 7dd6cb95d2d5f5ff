export { configureBwrap, configureOverlayHelper, detectIsolation, runIsolated } from './detect';
export { isShell, SandboxSpecError, IsolationUnavailableError, resolveLimits, whenIdle } from './run';
export { builtOverlayHelper, ensureOverlayHelper, opaqueDirs, overlayLayerDir, removeOverlayLayer, type OverlayHelper } from './overlay';
export { readWorkspaceChanges, type WorkspaceChangesRead } from './changes';
export { overlayDiff, forgetLayerHashes, readLayerFile, type LayerChange, type LayerDiff, type EntryKind } from './layer';
export { prepareWorkdir, withWorkdirLock, workdirName, SANDBOX_WORKDIR, ARTIFACTS_DIR, type PreparedWorkdir } from './workdir';
export { copyDiff, syncWorkspace, workspaceManifestPath, MAX_WORKSPACE_ENTRIES, type SyncResult, type WorkspaceOwner } from './workspace';
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

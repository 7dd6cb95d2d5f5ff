/**
 * What a workspace session has changed, whichever way it sees its workspace: an overlay's upper
 * layer (layer.ts) or a copy's changes (workspace.ts). Read while no run of the session is going
 * (whenIdle), together with the contents of the changed files the caller picks.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { hostState } from './detect';
import { overlayDiff, readLayerFile, type LayerChange, type LayerDiff } from './layer';
import { opaqueDirs } from './overlay';
import { whenIdle } from './run';
import { copyDiff } from './workspace';
import type { WorkspaceView } from '../../model/sandbox/records';
import { ARTIFACTS_DIR } from './workdir';

/** Entries the runtime itself makes in a workdir: not changes to the project, unless the project has them too. */
const RUNTIME_ENTRIES = [ARTIFACTS_DIR, '.tmp'];

export interface WorkspaceChangesRead {
  diff: LayerDiff;
  /** Content of the picked files, by path (at most maxFileBytes each). */
  contents: Map<string, Buffer>;
}

export async function readWorkspaceChanges(o: {
  workdir: string;
  workspace: string;
  view: WorkspaceView;
  maxChanges: number;
  maxFileBytes: number;
  /** Which changed files' contents to read (e.g. those not stored yet). */
  pick: (diff: LayerDiff) => Promise<LayerChange[]>;
}): Promise<WorkspaceChangesRead | null> {
  const own: string[] = [];
  for (const name of RUNTIME_ENTRIES) if (!(await fsp.lstat(path.join(o.workspace, name)).catch(() => null))) own.push(name);
  const exclude = (rel: string) => own.some((n) => rel === n || rel.startsWith(`${n}/`));
  return whenIdle(o.workdir, async () => {
    let diff: LayerDiff;
    if (o.view === 'overlay') {
      const host = await hostState();
      if (!host.overlay) throw new Error(`the workspace overlay's layer cannot be read here: ${host.info.workspace_reason ?? 'no overlay helper'}`);
      // Unprivileged, the overlay keeps its marks in user.* attributes (overlay.ts).
      const opaque = await opaqueDirs(host.overlay.helper, o.workdir, !host.uidIsolation);
      diff = await overlayDiff({ upper: o.workdir, lower: o.workspace, opaque, exclude, maxChanges: o.maxChanges });
    } else {
      diff = await copyDiff(o.workspace, o.workdir, { exclude, maxChanges: o.maxChanges });
    }
    const contents = new Map<string, Buffer>();
    for (const c of await o.pick(diff)) {
      const bytes = await readLayerFile(path.join(o.workdir, c.path), o.maxFileBytes);
      if (bytes) contents.set(c.path, bytes);
    }
    return { diff, contents };
  });
}

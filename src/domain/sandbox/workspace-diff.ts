import type { RouteInput } from '../../contract';
import { LoreError, notFound } from '../../contract/errors';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import { WORKSPACE_DIFF_CAPS } from '../../model/sandbox/limits';
import type { Database } from '../../store/database';
import type { ScopeRef } from '../../store/scope';
import { SandboxWorkspaceDiffs } from '../../store/sandbox/index';
import { readWorkspaceChanges, type LayerChange } from '../../sandbox/isolation/index';
import type { RunDoc, SessionDoc, WorkspaceBlobDoc, WorkspaceChangeCounts, WorkspaceChangeDoc, WorkspaceDiffDoc } from '../../model/sandbox/records';
import { encodeContent, FILES_RESPONSE_BYTES } from './artifact';
import { sandboxStores, type SandboxCtx } from './context';

/**
 * What a workspace session changed (docs/sandbox.md, "What a session changed"): read on the
 * worker when each run ends, stored with the changed files' contents, served by sessions/diff
 * from the store (the API may run on another host than the session's layer).
 */

/** What one stored diff's change list may take (a MongoDB document holds 16 MiB). */
const DIFF_DOC_BYTES = 8 * 1024 * 1024;

const counts = (changes: { change: LayerChange['change'] }[], truncated: boolean): WorkspaceChangeCounts => ({
  added: changes.filter((c) => c.change === 'added').length,
  modified: changes.filter((c) => c.change === 'modified').length,
  deleted: changes.filter((c) => c.change === 'deleted').length,
  truncated,
});

/**
 * Reads the session's changes after `run` ended and stores them (replacing an earlier read) with
 * the contents the session lacks: at most WORKSPACE_DIFF_CAPS.fileBytes per file and runBytes of
 * new content per read (what is left over is stored by a later run's read). Null when another run
 * of the session is still going: its own end reads them.
 */
export async function recordWorkspaceChanges(
  db: Database,
  ref: ScopeRef,
  o: { session: SessionDoc; run: RunDoc; workdir: string; workspace: string; at: string },
): Promise<WorkspaceChangeCounts | null> {
  const diffs = new SandboxWorkspaceDiffs(db, ref);
  const sessionKey = o.session._id;
  const view = o.session.workspace?.view ?? 'copy';
  // Wall time, not the injected clock: it only orders the reads of runs that end together.
  const seq = Date.now();
  const notStored = new Map<string, string>();
  const read = await readWorkspaceChanges({
    workdir: o.workdir,
    workspace: o.workspace,
    view,
    maxChanges: WORKSPACE_DIFF_CAPS.changes,
    maxFileBytes: WORKSPACE_DIFF_CAPS.fileBytes,
    pick: async (diff) => {
      const files = diff.changes.filter((c) => c.sha256 !== null);
      const stored = await diffs.storedShas(sessionKey, [...new Set(files.map((c) => c.sha256!))]);
      const picked: LayerChange[] = [];
      const wanted = new Set<string>();
      let budget: number = WORKSPACE_DIFF_CAPS.runBytes;
      for (const c of files) {
        if (stored.has(c.sha256!) || wanted.has(c.sha256!)) continue;
        const bytes = Math.min(c.size ?? 0, WORKSPACE_DIFF_CAPS.fileBytes);
        if (bytes > budget) {
          notStored.set(c.sha256!, `over the ${WORKSPACE_DIFF_CAPS.runBytes} bytes of new content stored per run (a later run stores it)`);
          continue;
        }
        budget -= bytes;
        wanted.add(c.sha256!);
        picked.push(c);
      }
      return picked;
    },
  });
  if (!read) return null;
  const blobs: WorkspaceBlobDoc[] = [];
  const inBlobs = new Set<string>();
  for (const c of read.diff.changes) {
    const content = c.sha256 ? read.contents.get(c.path) : undefined;
    if (!content || inBlobs.has(c.sha256!)) continue;
    inBlobs.add(c.sha256!);
    blobs.push({
      _id: `${sessionKey}:${c.sha256}`,
      session_key: sessionKey,
      sha256: c.sha256!,
      size: c.size ?? content.length,
      content,
      truncated: content.length < (c.size ?? 0),
    });
  }
  await diffs.saveBlobs(blobs);
  // One document holds the list: long paths would outgrow it before the count cap does.
  let bytes = 0;
  let truncated = read.diff.truncated;
  const listed = read.diff.changes.filter((c) => {
    bytes += 200 + Buffer.byteLength(c.path) + Buffer.byteLength(c.link ?? '');
    if (bytes > DIFF_DOC_BYTES) truncated = true;
    return bytes <= DIFF_DOC_BYTES;
  });
  const changes: WorkspaceChangeDoc[] = listed.map((c) => ({
    ...c,
    not_stored_reason: c.sha256 === null ? (c.kind === 'file' && c.change !== 'deleted' ? 'the file could not be read' : null) : (notStored.get(c.sha256) ?? null),
  }));
  const doc: WorkspaceDiffDoc = {
    _id: sessionKey,
    session_id: o.session.session_id,
    run_key: o.run._id,
    run_id: o.run.run_id,
    view,
    workspace_path: o.workspace,
    read_at: o.at,
    seq,
    counts: counts(changes, truncated),
    changes,
  };
  if (await diffs.put(doc)) await diffs.dropBlobsExcept(sessionKey, [...new Set(changes.flatMap((c) => (c.sha256 ? [c.sha256] : [])))]);
  return doc.counts;
}

type DiffInput = RouteInput<(typeof sandboxRoutes)['sandbox.sessionDiff']>;

const octal = (mode: number | null) => (mode === null ? null : `0${(mode & 0o7777).toString(8).padStart(3, '0')}`);

/** sessions/diff: the session's latest stored read, with contents up to the response budget. */
export async function sessionDiff(c: Pick<SandboxCtx, 'db'>, ref: ScopeRef, input: DiffInput) {
  const session = await sandboxStores(c.db, ref).sessions.get(input.session_id);
  if (!session) throw notFound('sandbox session', input.session_id, ref.scope, { session_id: input.session_id });
  if (!session.workspace) {
    throw new LoreError(
      'invalid_state',
      `sandbox session '${session.session_id}' has no workspace: its commands write only their own workdir (runs/artifact has what they put under artifacts/)`,
      {
        session_id: session.session_id,
      },
    );
  }
  const diffs = new SandboxWorkspaceDiffs(c.db, ref);
  const doc = await diffs.get(session._id);
  const workspace = { path: session.workspace.path, view: session.workspace.view ?? 'copy' };
  if (!doc) {
    return { session_id: session.session_id, workspace, read: null, summary: counts([], false), changes: [], message: 'no run of the session has ended yet: nothing has changed' };
  }
  const wanted = input.paths ? new Set(input.paths) : null;
  const listed = wanted ? doc.changes.filter((ch) => wanted.has(ch.path)) : doc.changes;
  const blobs = input.include_content ? await diffs.contents(session._id, [...new Set(listed.flatMap((ch) => (ch.sha256 ? [ch.sha256] : [])))]) : new Map();
  let budget = FILES_RESPONSE_BYTES;
  const changes = listed.map((ch) => {
    const base = { path: ch.path, change: ch.change, kind: ch.kind, size: ch.size, mode: octal(ch.mode), link: ch.link, sha256: ch.sha256 };
    const blob: WorkspaceBlobDoc | undefined = ch.sha256 ? blobs.get(ch.sha256) : undefined;
    if (!input.include_content || ch.sha256 === null) return { ...base, encoding: null, content: null, truncated: false, omitted: null };
    if (!blob) return { ...base, encoding: null, content: null, truncated: false, omitted: 'not_stored' as const };
    const enc = encodeContent(blob.content);
    if (enc.content.length > budget) return { ...base, encoding: enc.encoding, content: null, truncated: blob.truncated, omitted: 'too_large_for_response' as const };
    budget -= enc.content.length;
    return { ...base, ...enc, truncated: blob.truncated, omitted: null };
  });
  const removed = session.workdir_removed_at && session.workdir_removed_at > doc.read_at;
  return {
    session_id: session.session_id,
    workspace,
    read: { run_id: doc.run_id, read_at: doc.read_at },
    summary: doc.counts,
    changes,
    ...(removed
      ? {
          message: `the session's layer was removed at ${session.workdir_removed_at} (idle past LORE_SANDBOX_WORKDIR_TTL), after these changes were read: its next run starts from the project as it is`,
        }
      : {}),
  };
}

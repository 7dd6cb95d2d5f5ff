import type { RouteInput } from '../../contract';
import type { sandboxRoutes } from '../../contract/families/sandbox';
import type { ScopeRef } from '../../store/scope';
import { loadSandboxRun, sandboxStores, type SandboxCtx } from './context';
import { isTerminal, type ArtifactDoc } from '../../model/sandbox/records';
import { reconcileSandboxRun } from './reconcile';

type ArtifactInput = RouteInput<(typeof sandboxRoutes)['sandbox.runArtifact']>;

/** Output kept per stream in one response; all of it stays readable through runs/logs. */
export const OUTPUT_RESPONSE_BYTES = 1024 * 1024;
/** File content in one response; ask for fewer `paths` to get the rest. */
export const FILES_RESPONSE_BYTES = 4 * 1024 * 1024;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Text when the bytes are valid UTF-8 without NUL, else base64: the encoding field says which. */
export function encodeContent(bytes: Uint8Array): { encoding: 'utf8' | 'base64'; content: string } {
  if (!bytes.includes(0)) {
    try {
      return { encoding: 'utf8', content: utf8.decode(bytes) };
    } catch {
      /* not UTF-8 */
    }
  }
  return { encoding: 'base64', content: Buffer.from(bytes).toString('base64') };
}

export async function runArtifact(c: SandboxCtx, ref: ScopeRef, input: ArtifactInput) {
  const { runs, logs, artifacts } = sandboxStores(c.db, ref);
  const run = await reconcileSandboxRun(c, runs, await loadSandboxRun(runs, input.run_id));
  const out: Record<string, unknown> = { run_id: run.run_id, status: run.status, complete: isTerminal(run.status) };

  if (input.include_output) {
    const text = { stdout: [] as string[], stderr: [] as string[] };
    const bytes = { stdout: 0, stderr: 0 };
    let clipped = false;
    for await (const e of logs.iterate(run._id)) {
      if (bytes[e.stream] + e.bytes <= OUTPUT_RESPONSE_BYTES) text[e.stream].push(e.text);
      else clipped = true;
      bytes[e.stream] += e.bytes;
    }
    out.output = {
      stdout: text.stdout.join(''),
      stderr: text.stderr.join(''),
      stdout_bytes: bytes.stdout,
      stderr_bytes: bytes.stderr,
      truncated: run.truncated,
      clipped,
    };
  }
  if (input.include_result) {
    out.result = {
      status: run.status,
      exit_code: run.exit_code,
      signal: run.signal,
      duration_ms: run.duration_ms,
      reason: run.reason,
      limit_hit: run.limit_hit,
      truncated: run.truncated,
    };
  }
  if (input.include_files) {
    let budget = FILES_RESPONSE_BYTES;
    out.files = (await artifacts.list(run._id, input.paths)).map((f: ArtifactDoc) => {
      const base = { path: f.path, size: f.size, truncated: f.truncated, sha256: f.sha256 };
      if (!f.content) return { ...base, encoding: null, content: null, omitted: 'not_stored' as const };
      const enc = encodeContent(f.content);
      if (enc.content.length > budget) return { ...base, encoding: enc.encoding, content: null, omitted: 'too_large_for_response' as const };
      budget -= enc.content.length;
      return { ...base, ...enc, omitted: null };
    });
    out.files_skipped = run.artifacts_skipped;
  }
  return out as never;
}

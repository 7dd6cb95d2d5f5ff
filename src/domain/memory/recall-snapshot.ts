import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Log } from '../../log';
import { ensureDir, pruneDir, readColumnFile, readJsonFile, writeColumnFileNow, writeJsonFile, type PendingColumnFile } from '../../store/column-file';
import { PartState } from './partition-state';
import type { RecallIndex } from './recall-index';

/**
 * Snapshots of the recall index (docs/memory.md, "Snapshots"): the index's partitions written to
 * column files in the data dir, and a manifest naming them with the catch-up watermark they are
 * complete up to. A start loads them and catches up from the store's change feed (every node change
 * since the watermark, and the holes the watermark had), instead of reading every node: the store's
 * seq-ordered feed is the change log, so nothing is written twice on the write path and an
 * acknowledged write is never only in a file.
 *
 * A partition is three files: its state (id table, per-node columns, live BM25 index), its archive
 * index, and its vectors, written in one synchronous step so they describe one instant (the
 * archive and vector files only when they changed since their last write: archived memory and
 * vectors change less often than the rest). A round writes every partition that changed, then the
 * manifest; files the new manifest does not name are removed after it. Every file goes through a
 * temporary name, fsync and rename, so a kill at any moment leaves the previous round whole; the
 * manifest names the store's identity and database, so a snapshot is never applied to another
 * store, and one whose watermark is above the store's sequence head (a store restored from a
 * backup) is not applied either. Any unreadable or mismatching file means a rebuild from the store,
 * with one warning.
 */

/** Bump when what an index file holds changes meaning (analysis, layout, field weights): old snapshots are then rebuilt. */
export const RECALL_SNAPSHOT_FORMAT = 1;

/**
 * A snapshot further behind the store than this many seqs is not used: the index is built from the
 * store before the API listens instead. Recall waits for the catch-up after a snapshot, so what it
 * may have to catch up is kept to seconds (~15 s at most on this machine); snapshots are written
 * every 20 000 changes, so only a process that was down while others wrote (or a store filled by an
 * import) is this far behind.
 */
export const SNAPSHOT_MAX_TAIL = 50_000;

interface PartFiles {
  state: string;
  archive: string;
  vectors: string;
}

interface Manifest {
  format: number;
  store: string;
  database: string;
  /** The encoder the vectors were computed with (null: none); other vectors are dropped on load. */
  encoder: string | null;
  generation: number;
  watermark: number;
  holes: number[];
  nodes: number;
  partitions: { tenant: string; scope: string; nodes: number; files: PartFiles }[];
}

export interface LoadedSnapshot {
  parts: PartState[];
  watermark: number;
  holes: number[];
  nodes: number;
  bytes: number;
  ms: number;
  /** The vectors were dropped (another encoder): every live node needs its vector again. */
  vectorsDropped: boolean;
}

export interface RoundStats {
  partitions: number;
  files: number;
  bytes: number;
  /** The longest time one partition held the event loop (its files are written synchronously). */
  maxBlockedMs: number;
  blockedMs: number;
  ms: number;
}

const partKey = (tenant: string, scope: string) => createHash('sha256').update(`${tenant}\u0000${scope}`).digest('hex').slice(0, 16);

export class RecallSnapshots {
  private files = new Map<string, PartFiles>();
  private generation = 0;
  private running: Promise<RoundStats | null> | null = null;
  private last: RoundStats | null = null;
  private lastAt = 0;

  constructor(
    private readonly deps: {
      /** The snapshot directory (one per database). */
      dir: string;
      index: RecallIndex;
      /** The catch-up's watermark and holes at the start of a round. */
      position: () => { watermark: number; holes: number[] };
      store: { id: string; database: string };
      encoder: string | null;
      log: Log;
    },
  ) {}

  private manifestPath(): string {
    return join(this.deps.dir, 'manifest.json');
  }

  /** The last round's figures (diagnostics), and when it ended (wall time). */
  get lastRound(): (RoundStats & { at: number }) | null {
    return this.last ? { ...this.last, at: this.lastAt } : null;
  }

  /** Changes not in a snapshot yet (every partition's). */
  pending(): number {
    let n = 0;
    for (const st of this.deps.index.partitions()) n += st.dirty.state + st.dirty.archive + st.dirty.vectors;
    return n;
  }

  /**
   * The snapshot, when there is a usable one for this store: every partition read back. `head` is
   * the store's sequence head now. Null (with the reason logged) when there is none or it cannot be
   * used: the caller then builds the index from the store.
   */
  async load(head: number): Promise<LoadedSnapshot | null> {
    // Wall time, not the injected clock: how long the load really took.
    const t0 = Date.now();
    let m: Manifest;
    try {
      m = (await readJsonFile(this.manifestPath())) as Manifest;
    } catch (err) {
      this.deps.log.warn(`recall index snapshot: unreadable manifest (${(err as Error).message}); rebuilding from the store`);
      return null;
    }
    if (m === null) return null;
    const mismatch =
      m.format !== RECALL_SNAPSHOT_FORMAT
        ? `format ${m.format}, this version reads ${RECALL_SNAPSHOT_FORMAT}`
        : m.store !== this.deps.store.id || m.database !== this.deps.store.database
          ? 'it was taken of another store'
          : m.watermark > head
            ? `its watermark ${m.watermark} is above the store's sequence head ${head} (a store restored from an earlier copy?)`
            : head - m.watermark > SNAPSHOT_MAX_TAIL
              ? `it is ${head - m.watermark} changes behind the store (more than ${SNAPSHOT_MAX_TAIL} to catch up)`
              : null;
    if (mismatch) {
      this.deps.log.warn(`recall index snapshot not used: ${mismatch}; rebuilding from the store`);
      return null;
    }
    const dropVectors = m.encoder !== this.deps.encoder;
    try {
      const parts: PartState[] = [];
      let bytes = 0;
      for (const p of m.partitions) {
        const [state, archive, vectors] = await Promise.all([
          readColumnFile(join(this.deps.dir, p.files.state)),
          readColumnFile(join(this.deps.dir, p.files.archive)),
          dropVectors ? null : readColumnFile(join(this.deps.dir, p.files.vectors)),
        ]);
        bytes += state.bytes + archive.bytes + (vectors?.bytes ?? 0);
        const part = PartState.thaw(
          state,
          archive,
          vectors ?? { meta: { dim: 0, rows: 0 }, columns: { data: { data: new Float32Array(0) }, rowKey: { data: new Int32Array(0) }, keyRow: { data: new Int32Array(0) } } },
        );
        if (part.tenant !== p.tenant || part.scope !== p.scope) throw new Error(`${p.files.state} holds another partition`);
        parts.push(part);
        this.files.set(partKey(p.tenant, p.scope), p.files);
      }
      // Written again by the first round: the files on disk are complete up to the manifest's
      // watermark, and the partitions count as changed for what the catch-up brings after it.
      this.generation = m.generation;
      if (dropVectors) for (const part of parts) part.dirty.vectors += 1;
      return { parts, watermark: m.watermark, holes: m.holes, nodes: m.nodes, bytes, ms: Date.now() - t0, vectorsDropped: dropVectors };
    } catch (err) {
      this.files.clear();
      this.deps.log.warn(`recall index snapshot not used: ${(err as Error).message}; rebuilding from the store`);
      return null;
    }
  }

  /** One round (rounds never overlap: a call during one gets that one). */
  write(): Promise<RoundStats | null> {
    this.running ??= this.round().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async round(): Promise<RoundStats | null> {
    // Wall time, not the injected clock: what a round costs.
    const t0 = Date.now();
    const { index, dir } = this.deps;
    // Everything at or below the watermark (and not a hole) is applied to every partition now, so
    // each file written from here on is complete up to it; what comes after is caught up again.
    const { watermark, holes } = this.deps.position();
    const generation = this.generation + 1;
    await ensureDir(dir);
    const next = new Map(this.files);
    const written: PendingColumnFile[] = [];
    const taken: { st: PartState; d: PartState['dirty'] }[] = [];
    let maxBlockedMs = 0;
    let blockedMs = 0;
    let current: PendingColumnFile[] = [];
    try {
      for (const st of index.partitions()) {
        const key = partKey(st.tenant, st.scope);
        const cur = this.files.get(key);
        const d = { ...st.dirty };
        if (cur && d.state === 0 && d.archive === 0 && d.vectors === 0) continue;
        // One synchronous step: the three files of a partition are copied at the same instant.
        const name = (part: string) => `${key}.${part}.${generation}.col`;
        const files: PartFiles = { ...(cur ?? { state: '', archive: '', vectors: '' }) };
        current = [];
        if (!cur || d.archive > 0) {
          current.push(writeColumnFileNow(join(dir, name('archive')), st.archiveFrozen()));
          files.archive = name('archive');
        }
        if (!cur || d.vectors > 0) {
          current.push(writeColumnFileNow(join(dir, name('vectors')), st.vectorsFrozen()));
          files.vectors = name('vectors');
        }
        current.push(writeColumnFileNow(join(dir, name('state')), st.freeze()));
        files.state = name('state');
        const held = current.reduce((n, p) => n + p.blockedMs, 0);
        maxBlockedMs = Math.max(maxBlockedMs, held);
        blockedMs += held;
        st.dirty.state -= d.state;
        st.dirty.archive -= d.archive;
        st.dirty.vectors -= d.vectors;
        taken.push({ st, d });
        next.set(key, files);
        // Written before the next partition is copied: one partition's copy at a time in memory.
        for (const p of current) await p.commit();
        written.push(...current);
        current = [];
      }
      if (written.length === 0 && this.files.size > 0) return null;
      const parts = index.partitions().filter((st) => next.has(partKey(st.tenant, st.scope)));
      const manifest: Manifest = {
        format: RECALL_SNAPSHOT_FORMAT,
        store: this.deps.store.id,
        database: this.deps.store.database,
        encoder: this.deps.encoder,
        generation,
        watermark,
        holes,
        nodes: parts.reduce((n, st) => n + st.count, 0),
        partitions: parts.map((st) => ({ tenant: st.tenant, scope: st.scope, nodes: st.count, files: next.get(partKey(st.tenant, st.scope))! })),
      };
      await writeJsonFile(this.manifestPath(), manifest);
      this.files = next;
      this.generation = generation;
    } catch (err) {
      // Nothing named by the manifest changed; the partitions count as changed again.
      for (const { st, d } of taken) {
        st.dirty.state += d.state;
        st.dirty.archive += d.archive;
        st.dirty.vectors += d.vectors;
      }
      await Promise.all([...current, ...written].map((p) => p.drop().catch(() => {})));
      throw err;
    }
    const keep = new Set(['manifest.json']);
    for (const f of this.files.values()) for (const name of Object.values(f)) keep.add(name);
    await pruneDir(dir, keep);
    const stats: RoundStats = {
      partitions: taken.length,
      files: written.length,
      bytes: written.reduce((n, p) => n + p.bytes, 0),
      maxBlockedMs: Math.round(maxBlockedMs),
      blockedMs: Math.round(blockedMs),
      ms: Date.now() - t0,
    };
    this.last = stats;
    this.lastAt = Date.now();
    return stats;
  }
}

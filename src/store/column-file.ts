import { closeSync, fsyncSync, openSync, promises as fsp } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * A file of typed-array columns and a JSON header: how Lore's in-process indexes are written to
 * disk and read back (the recall index's snapshots, docs/memory.md "Snapshots"). Not MongoDB: a
 * derived, rebuildable copy kept beside the data, in the process's data dir.
 *
 *   "LORECOL2" | column bytes, each padded to 8 | header JSON | header length (u32 LE) | "LORECOL2"
 *
 * The header (a trailer, so it can carry checksums computed while the columns are written) holds
 * the caller's `meta` and, per column, its name, element type, length, CRC-32 and whether it gets
 * room to grow when read. Written to a temporary file, fsynced, then renamed over the target (and
 * the directory fsynced): a reader finds the old file or the new one whole, never a torn one,
 * whatever happens to the process or the machine meanwhile. Reading checks both magics, the shape
 * and every column's CRC, and fails loudly on anything else.
 */

type Column = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type ColumnType = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64';

/** Columns and meta, as the indexes freeze them (src/retrieval/frozen.ts has the same shape). */
export interface ColumnSet {
  meta: Record<string, unknown>;
  columns: Record<string, { data: Column; grow?: { fill: number } }>;
}

interface ColumnHeader {
  name: string;
  type: ColumnType;
  length: number;
  crc: number;
  grow?: { fill: number };
}

const MAGIC = Buffer.from('LORECOL2', 'latin1');
/** Bytes written (and checksummed) per step: the event loop gets a turn between steps. */
const CHUNK = 4 << 20;
const pad8 = (n: number) => (8 - (n % 8)) % 8;
const ZEROS = Buffer.alloc(8);

const CTORS = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i32: Int32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

function typeOf(c: Column): ColumnType {
  if (c instanceof Uint8Array) return 'u8';
  if (c instanceof Uint16Array) return 'u16';
  if (c instanceof Uint32Array) return 'u32';
  if (c instanceof Int32Array) return 'i32';
  if (c instanceof Float32Array) return 'f32';
  return 'f64';
}

const bytesOf = (c: Column) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);

export interface WriteStats {
  bytes: number;
  /** Time the caller's thread was held copying the columns (they must not change while they are copied). */
  blockedMs: number;
}

/** A column file copied from its arrays, to be written and committed (or dropped). */
export interface PendingColumnFile extends WriteStats {
  path: string;
  /**
   * Writes the copy to a temporary file beside `path` (checksumming it as it goes, a chunk per
   * event-loop turn), fsyncs it (off the main thread), renames it over `path` and fsyncs the directory.
   */
  commit(): Promise<void>;
  /** Forgets the copy (and a temporary file a failed commit left). */
  drop(): Promise<void>;
}

/**
 * Copies `set`'s columns now, synchronously: they are views of live arrays that may change as soon
 * as this returns, and several files copied back to back in one call stack describe the same
 * instant. A memory copy holds the caller a fraction of what writing the file would (the write,
 * its checksums and its fsync then run in commit(), beside other work); the copy is the file's
 * size, held until commit() returns. The directory must exist before commit().
 */
export function writeColumnFileNow(path: string, set: ColumnSet): PendingColumnFile {
  const start = performance.now();
  const staged: { name: string; type: ColumnType; length: number; grow?: { fill: number }; bytes: Buffer }[] = [];
  let bytes = MAGIC.length;
  for (const [name, c] of Object.entries(set.columns)) {
    const copy = Buffer.allocUnsafeSlow(c.data.byteLength);
    bytesOf(c.data).copy(copy);
    staged.push({ name, type: typeOf(c.data), length: c.data.length, ...(c.grow ? { grow: c.grow } : {}), bytes: copy });
    bytes += copy.length + pad8(copy.length);
  }
  const meta = JSON.stringify(set.meta); // meta may reference live state too: taken now
  const blockedMs = performance.now() - start;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let written = false;
  return {
    path,
    bytes,
    blockedMs,
    async commit() {
      const fh = await fsp.open(tmp, 'w');
      written = true;
      try {
        let at = 0;
        const put = async (b: Buffer) => {
          for (let off = 0; off < b.length; ) {
            const { bytesWritten } = await fh.write(b, off, b.length - off, at);
            off += bytesWritten;
            at += bytesWritten;
          }
        };
        await put(MAGIC);
        const columns: ColumnHeader[] = [];
        for (const c of staged) {
          let crc = 0;
          for (let off = 0; off < c.bytes.length; off += CHUNK) {
            const chunk = c.bytes.subarray(off, Math.min(c.bytes.length, off + CHUNK));
            crc = crc32(chunk, crc);
            await put(chunk);
          }
          await put(ZEROS.subarray(0, pad8(c.bytes.length)));
          columns.push({ name: c.name, type: c.type, length: c.length, crc, ...(c.grow ? { grow: c.grow } : {}) });
          c.bytes = EMPTY; // written: its memory can go
        }
        const header = Buffer.from(`{"meta":${meta},"columns":${JSON.stringify(columns)}}`, 'utf8');
        const len = Buffer.alloc(4);
        len.writeUInt32LE(header.length);
        await put(header);
        await put(len);
        await put(MAGIC);
        await fh.sync(); // off the main thread (libuv's pool)
      } finally {
        await fh.close();
      }
      await replaceDurably(tmp, path);
    },
    async drop() {
      for (const c of staged) c.bytes = EMPTY;
      if (written) await fsp.rm(tmp, { force: true });
    },
  };
}

const EMPTY = Buffer.alloc(0);

/** writeColumnFileNow and its commit, for a file nothing else needs to agree with. */
export async function writeColumnFile(path: string, set: ColumnSet): Promise<WriteStats> {
  await fsp.mkdir(dirname(path), { recursive: true });
  const pending = writeColumnFileNow(path, set);
  await pending.commit();
  return { bytes: pending.bytes, blockedMs: pending.blockedMs };
}

/** Reads a column file written by writeColumnFile; throws on a bad magic, shape or checksum. */
export async function readColumnFile(path: string): Promise<ColumnSet & { bytes: number }> {
  const fh = await fsp.open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(MAGIC.length);
    const tail = Buffer.alloc(4 + MAGIC.length);
    if (size < head.length + tail.length) throw new Error(`${path}: not a Lore column file`);
    await readFully(fh, head, 0);
    await readFully(fh, tail, size - tail.length);
    if (!head.equals(MAGIC) || !tail.subarray(4).equals(MAGIC)) throw new Error(`${path}: not a Lore column file (or an incomplete one)`);
    const hlen = tail.readUInt32LE(0);
    const hstart = size - tail.length - hlen;
    if (hstart < MAGIC.length) throw new Error(`${path}: bad header length`);
    const hbuf = Buffer.alloc(hlen);
    await readFully(fh, hbuf, hstart);
    const header = JSON.parse(hbuf.toString('utf8')) as { meta: Record<string, unknown>; columns: ColumnHeader[] };
    let at = MAGIC.length;
    const columns: ColumnSet['columns'] = {};
    for (const h of header.columns) {
      const Ctor = CTORS[h.type];
      if (!Ctor || !Number.isInteger(h.length) || h.length < 0) throw new Error(`${path}: column '${h.name}' has a bad type or length`);
      const byteLength = h.length * Ctor.BYTES_PER_ELEMENT;
      if (at + byteLength > hstart) throw new Error(`${path}: column '${h.name}' runs past the data`);
      const capacity = h.grow ? h.length + Math.max(16, h.length >>> 3) : h.length;
      const data = new Ctor(capacity) as Column;
      if (h.grow && h.grow.fill !== 0) data.fill(h.grow.fill, h.length);
      const view = Buffer.from(data.buffer, data.byteOffset, byteLength);
      await readFully(fh, view, at);
      if (crc32(view) !== h.crc) throw new Error(`${path}: column '${h.name}' fails its checksum`);
      at += byteLength + pad8(byteLength);
      columns[h.name] = { data, ...(h.grow ? { grow: h.grow } : {}) };
    }
    return { meta: header.meta, columns, bytes: size };
  } finally {
    await fh.close();
  }
}

async function readFully(fh: fsp.FileHandle, into: Buffer, position: number): Promise<void> {
  for (let off = 0; off < into.length; ) {
    const { bytesRead } = await fh.read(into, off, Math.min(into.length - off, 1 << 30), position + off);
    if (bytesRead === 0) throw new Error('unexpected end of a column file');
    off += bytesRead;
  }
}

/** A JSON file written atomically (temporary file, fsync, rename), e.g. a snapshot's manifest naming its column files. */
export async function writeJsonFile(path: string, value: unknown): Promise<void> {
  await fsp.mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(JSON.stringify(value));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await replaceDurably(tmp, path);
}

/** Renames a written and synced temporary file over `path`, then syncs the directory so the rename survives a crash. */
async function replaceDurably(tmp: string, path: string): Promise<void> {
  await fsp.rename(tmp, path);
  try {
    const dir = openSync(dirname(path), 'r');
    fsyncSync(dir);
    closeSync(dir);
  } catch {
    /* a directory fsync is best effort (not every filesystem allows it) */
  }
}

/** A JSON file's value, or null when there is no such file. */
export async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await fsp.readFile(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Creates a directory (and its parents). */
export async function ensureDir(dir: string): Promise<void> {
  await fsp.mkdir(dir, { recursive: true });
}

/**
 * Removes the files of `dir` that `keep` does not name: column files a newer manifest no longer
 * names, and temporary files older than `tmpAgeMs` (a writer that died); returns how many.
 */
export async function pruneDir(dir: string, keep: ReadonlySet<string>, tmpAgeMs = 3_600_000): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (keep.has(name)) continue;
    const path = join(dir, name);
    if (name.endsWith('.tmp')) {
      // Wall time, not the injected clock: a file's age on disk.
      const st = await fsp.stat(path).catch(() => null);
      if (!st || Date.now() - st.mtimeMs < tmpAgeMs) continue;
    } else if (!name.endsWith('.col')) continue;
    await fsp.rm(path, { force: true });
    removed += 1;
  }
  return removed;
}

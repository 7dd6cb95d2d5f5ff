/**
 * The state of an index as plain typed arrays ("columns") and a little JSON ("meta"), for
 * snapshots (src/domain/memory/recall-snapshot.ts writes and reads them). Freezing copies nothing:
 * the columns are views of the live arrays, cut to what is used, so a frozen state is valid only
 * until the index changes again (the writer writes it at once). Thawing takes arrays the reader
 * allocated; a column marked `grow` is given room to grow (an eighth more, filled with `fill`) so
 * the first writes after a load do not copy every array at once.
 */

export type Column = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

export type ColumnType = 'u8' | 'u16' | 'u32' | 'i32' | 'f32' | 'f64';

export interface FrozenColumn {
  data: Column;
  /** Room to grow on thaw: extra elements filled with `fill` (absent: exactly `data.length`). */
  grow?: { fill: number };
}

export interface Frozen {
  meta: Record<string, unknown>;
  columns: Record<string, FrozenColumn>;
}

export function columnType(c: Column): ColumnType {
  if (c instanceof Uint8Array) return 'u8';
  if (c instanceof Uint16Array) return 'u16';
  if (c instanceof Uint32Array) return 'u32';
  if (c instanceof Int32Array) return 'i32';
  if (c instanceof Float32Array) return 'f32';
  return 'f64';
}

/** A new column of `type` with room for `capacity` elements, the first `length` to be read into. */
export function allocColumn(type: ColumnType, length: number, grow: { fill: number } | undefined): Column {
  const capacity = grow ? length + Math.max(16, length >>> 3) : length;
  let c: Column;
  switch (type) {
    case 'u8':
      c = new Uint8Array(capacity);
      break;
    case 'u16':
      c = new Uint16Array(capacity);
      break;
    case 'u32':
      c = new Uint32Array(capacity);
      break;
    case 'i32':
      c = new Int32Array(capacity);
      break;
    case 'f32':
      c = new Float32Array(capacity);
      break;
    default:
      c = new Float64Array(capacity);
  }
  if (grow && grow.fill !== 0) c.fill(grow.fill, length);
  return c;
}

/** The columns of `part` under `prefix.` in `into` (nested states: a partition holds several indexes). */
export function nest(into: Frozen, prefix: string, part: Frozen): Frozen {
  into.meta[prefix] = part.meta;
  for (const [name, col] of Object.entries(part.columns)) into.columns[`${prefix}.${name}`] = col;
  return into;
}

/** The nested state `prefix` of a thawed one (see nest). */
export function child(f: Frozen, prefix: string): Frozen {
  const columns: Record<string, FrozenColumn> = {};
  const p = `${prefix}.`;
  for (const [name, col] of Object.entries(f.columns)) if (name.startsWith(p)) columns[name.slice(p.length)] = col;
  return { meta: (f.meta[prefix] ?? {}) as Record<string, unknown>, columns };
}

/** A thawed column by name, of the expected type (a snapshot from another version fails here, loudly). */
export function col<T extends Column>(f: Frozen, name: string, ctor: { new (n: number): T; name: string }): T {
  const c = f.columns[name]?.data;
  if (!c) throw new Error(`snapshot: column '${name}' is missing`);
  if (!(c instanceof ctor)) throw new Error(`snapshot: column '${name}' is not a ${ctor.name}`);
  return c as T;
}

/** A number from a thawed state's meta. */
export function num(f: Frozen, name: string): number {
  const v = f.meta[name];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`snapshot: '${name}' is not a number`);
  return v;
}

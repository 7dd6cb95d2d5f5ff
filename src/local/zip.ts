import { crc32, inflateRawSync } from 'node:zlib';

/**
 * Reads named entries of a zip (a jar) held in memory: the central directory at the end, then
 * each entry's local header and data, stored or deflated, checked against its CRC-32. Enough for
 * the model jars from Maven Central (no zip64, no encryption); anything else is refused by name.
 */

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export class ZipError extends Error {
  override name = 'ZipError';
}

interface CentralEntry {
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

function centralDirectory(zip: Buffer): Map<string, CentralEntry> {
  // The end record is the last 22 bytes, unless a comment (up to 64 KiB) follows it.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65_535); i -= 1) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError('not a zip file (no end of central directory)');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out = new Map<string, CentralEntry>();
  for (let i = 0; i < count; i += 1) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL) throw new ZipError('corrupt central directory');
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    out.set(name, {
      method: zip.readUInt16LE(at + 10),
      crc: zip.readUInt32LE(at + 16),
      compressed: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** The uncompressed bytes of each named entry; throws when one is missing or damaged. */
export function readZipEntries(zip: Buffer, names: readonly string[]): Map<string, Buffer> {
  const dir = centralDirectory(zip);
  const out = new Map<string, Buffer>();
  for (const name of names) {
    const e = dir.get(name);
    if (!e) throw new ZipError(`no entry ${name}`);
    if (e.size === 0xffffffff || e.compressed === 0xffffffff) throw new ZipError(`${name}: zip64 entries are not supported`);
    if (zip.readUInt32LE(e.offset) !== LOCAL) throw new ZipError(`${name}: corrupt local header`);
    const start = e.offset + 30 + zip.readUInt16LE(e.offset + 26) + zip.readUInt16LE(e.offset + 28);
    const raw = zip.subarray(start, start + e.compressed);
    let data: Buffer;
    if (e.method === 0) data = Buffer.from(raw);
    else if (e.method === 8) data = inflateRawSync(raw);
    else throw new ZipError(`${name}: compression method ${e.method} is not supported`);
    if (data.length !== e.size || crc32(data) >>> 0 !== e.crc) throw new ZipError(`${name}: size or CRC-32 does not match`);
    out.set(name, data);
  }
  return out;
}

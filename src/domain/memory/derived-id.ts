import { createHash } from 'node:crypto';

/**
 * Ids derived from their parts: the same parts always give the same id, so replaying an
 * operation cannot create a second object (an edge written twice, a pack imported twice).
 *
 * `orderedDerivedUuid(from, …)` keeps the time-ordered head of a UUIDv7 `from` (48-bit
 * milliseconds, version, 12-bit counter: "xxxxxxxx-xxxx-7xxx") and fills the rest from a hash.
 * The result is still a valid UUIDv7 that sorts where `from` sorts: edges of a node come back in
 * the creation order of their source (the events of a session in append order), and ids
 * re-derived on import keep the creation order of the originals.
 */

function hashHex(parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest();
}

function format(h: Buffer): string {
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** UUID version 8 (RFC 9562 "custom") from a hash of the parts. */
export function derivedUuid(...parts: string[]): string {
  const h = hashHex(parts);
  h[6] = 0x80 | (h[6]! & 0x0f);
  h[8] = 0x80 | (h[8]! & 0x3f);
  return format(h);
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function orderedDerivedUuid(from: string, ...parts: string[]): string {
  if (!V7.test(from)) return derivedUuid(from, ...parts);
  const h = hashHex([from, ...parts]);
  h[8] = 0x80 | (h[8]! & 0x3f);
  const tail = format(h).slice(18); // "-vxxx-xxxxxxxxxxxx" from the hash (variant set)
  return `${from.slice(0, 18).toLowerCase()}${tail}`;
}

export const edgeId = (tenant: string, scope: string, src: string, dst: string, type: string) => orderedDerivedUuid(src, 'edge', tenant, scope, src, dst, type);

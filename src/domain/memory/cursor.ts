import { LoreError } from '../../contract/errors';

/**
 * Opaque pagination cursors: base64url of {r: route, a: last id}. Bound to the route that made
 * them, so a cursor of one listing cannot be replayed against another; a malformed cursor is
 * invalid_request, never a silent first page.
 */

export function encodeCursor(route: string, after: string): string {
  return Buffer.from(JSON.stringify({ r: route, a: after }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, route: string): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { r?: unknown; a?: unknown };
    if (v.r === route && typeof v.a === 'string' && v.a.length > 0) return v.a;
  } catch {
    /* fall through */
  }
  throw new LoreError('invalid_request', 'cursor is not a cursor returned by this route', { issues: [{ path: 'cursor', message: 'unknown cursor' }] });
}

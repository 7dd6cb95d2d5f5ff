import type { ScopeRef } from '../../store/scope';

/**
 * Node URIs (docs/memory.md): `lore://<tenant>/<scope>/node/<id>` names one node;
 * `lore://<tenant>/<scope>/client/<client_id>` names the node a caller wrote under a client_id.
 * Tenant and scope are percent-encoded (a scope may hold any printable character). A URI only
 * resolves inside its own tenant+scope: resolving it from elsewhere is not_found, never a leak.
 */

export interface ParsedUri {
  tenant_id: string;
  scope: string;
  kind: 'node' | 'client';
  key: string;
}

const enc = encodeURIComponent;

export const nodeUri = (ref: ScopeRef, id: string) => `lore://${enc(ref.tenant_id)}/${enc(ref.scope)}/node/${enc(id)}`;
export const clientUri = (ref: ScopeRef, clientId: string) => `lore://${enc(ref.tenant_id)}/${enc(ref.scope)}/client/${enc(clientId)}`;

const URI_RE = /^lore:\/\/([^/]+)\/([^/]+)\/(node|client)\/([^/]+)$/;

export function parseUri(uri: string): ParsedUri | null {
  const m = URI_RE.exec(uri);
  if (!m) return null;
  try {
    return { tenant_id: decodeURIComponent(m[1]!), scope: decodeURIComponent(m[2]!), kind: m[3] as 'node' | 'client', key: decodeURIComponent(m[4]!) };
  } catch {
    return null;
  }
}

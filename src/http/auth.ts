import { timingSafeEqual } from 'node:crypto';
import { LoreError } from '../contract/errors';
import type { ApiKey } from '../model/api-key';

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Finds the key a request presents; unauthorized when keys are configured and none matches. */
export function authenticate(keys: readonly ApiKey[], header: string | undefined): ApiKey | null {
  if (keys.length === 0) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) {
    throw new LoreError(
      'unauthorized',
      'missing bearer token: send Authorization: Bearer <key> with a key of LORE_API_KEYS, or the install token (<data dir>/api-token) when LORE_REQUIRE_TOKEN is on',
    );
  }
  const presented = match[1]!;
  const found = keys.find((k) => same(k.key, presented));
  if (!found) throw new LoreError('unauthorized', 'unknown API key (or not the install token)');
  return found;
}

export function authorizeTenant(key: ApiKey | null, tenantId: string): void {
  if (key?.tenant && key.tenant !== tenantId) {
    throw new LoreError('forbidden', `this API key is bound to tenant '${key.tenant}' and cannot act for tenant '${tenantId}'`, {
      tenant_id: tenantId,
    });
  }
}

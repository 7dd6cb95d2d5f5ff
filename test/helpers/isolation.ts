import assert from 'node:assert/strict';
import { uniqueName } from './app';

export interface Identity {
  tenant_id: string;
  scope: string;
}

/** An owner and the two kinds of stranger every route family must keep out. */
export function identities(): { owner: Identity; otherTenant: Identity; otherScope: Identity } {
  const tenant = uniqueName('tenant-a');
  const scope = uniqueName('scope');
  return {
    owner: { tenant_id: tenant, scope },
    otherTenant: { tenant_id: uniqueName('tenant-b'), scope },
    otherScope: { tenant_id: tenant, scope: uniqueName('scope') },
  };
}

/**
 * Proves isolation for one route family: `seed` writes as the owner; `sees` asks, as a viewer,
 * whether that data is visible (by id, by listing, by search — whatever the family offers).
 * The owner must see it (otherwise the check proves nothing); another tenant with the same
 * scope name and the same tenant in another scope must not.
 */
export async function assertIsolated(opts: { seed: (owner: Identity) => Promise<void>; sees: (viewer: Identity) => Promise<boolean>; what: string }): Promise<void> {
  const { owner, otherTenant, otherScope } = identities();
  await opts.seed(owner);
  assert.equal(await opts.sees(owner), true, `${opts.what}: the owner must see its own data, or this check proves nothing`);
  assert.equal(await opts.sees(otherTenant), false, `${opts.what}: visible to another tenant with the same scope name`);
  assert.equal(await opts.sees(otherScope), false, `${opts.what}: visible to the same tenant in another scope`);
}

/** Asserts the contract's error envelope with a given code and status. */
export function assertError(res: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string): any {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body?.error?.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.request_id, res.headers['x-request-id']);
  return res.body;
}

/**
 * A tenant+scope handle. Every query the store runs is built from one, so no route can read,
 * count, update or delete across the boundary (contract.md §1, Isolation).
 */
export interface ScopeRef {
  readonly tenant_id: string;
  readonly scope: string;
}

export const scopeRef = (tenant_id: string, scope: string): ScopeRef => Object.freeze({ tenant_id, scope });

export const scopeKey = (ref: ScopeRef) => `${ref.tenant_id}\u0000${ref.scope}`;

/** The handle of anything that names its tenant and scope: a handler's call context, an activity's input. */
export const refOf = (of: { readonly tenant_id: string; readonly scope: string }): ScopeRef => scopeRef(of.tenant_id, of.scope);

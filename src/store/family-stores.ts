import type { Database } from './database';
import type { ScopeRef } from './scope';

/** A store class of one tenant+scope: what every scoped store's constructor takes. */
export type ScopedStoreClass<S> = new (db: Database, ref: ScopeRef) => S;

/** A family's stores of one tenant+scope, by name. */
export type FamilyStores<M extends Record<string, ScopedStoreClass<unknown>>> = { readonly [K in keyof M]: InstanceType<M[K]> };

/**
 * How a family reaches its stores, declared once per family (domain/<family>/context.ts):
 * `export const sandboxStores = familyStores({ runs: SandboxRuns, ... })`, then
 * `sandboxStores(db, ref).runs` wherever the family reads or writes.
 */
export function familyStores<M extends Record<string, ScopedStoreClass<unknown>>>(classes: M): (db: Database, ref: ScopeRef) => FamilyStores<M> {
  const entries = Object.entries(classes);
  return (db, ref) => Object.fromEntries(entries.map(([name, Store]) => [name, new Store(db, ref)])) as FamilyStores<M>;
}

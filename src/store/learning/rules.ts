import type { Filter } from 'mongodb';
import { type Database, defineCollection } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

/**
 * Which nodes of a scope are rules. Rules are memory nodes of type `rule` (kind is null, and the
 * node store indexes kinds, not types), so finding them without scanning the scope needs this
 * small registry: one entry per rule node, written when the rule is created or a rule node is
 * written through memory/write.
 */
export interface RuleEntryDoc {
  /** The rule node's id. */
  _id: string;
  rule_id: string;
  created_at: string;
}

export const ruleRegistryCollection = defineCollection({
  name: 'learning_rule_registry',
  indexes: [{ key: { tenant_id: 1, scope: 1, _id: 1 }, name: 'scope_id', why: 'loading a scope lists its rule nodes' }],
});

export class RuleRegistry {
  private readonly coll: ScopedCollection<RuleEntryDoc>;
  constructor(db: Database, ref: ScopeRef) {
    this.coll = db.scoped<RuleEntryDoc>(ruleRegistryCollection, ref);
  }

  /** Idempotent: registering a node twice keeps one entry. */
  async register(nodeId: string, ruleId: string, at: string): Promise<void> {
    await this.coll.updateOne({ _id: nodeId } as Filter<RuleEntryDoc>, { $setOnInsert: { rule_id: ruleId, created_at: at } }, { upsert: true });
  }

  async all(): Promise<RuleEntryDoc[]> {
    return this.coll.find({}, { sort: { _id: 1 }, limit: 10_000 });
  }
}

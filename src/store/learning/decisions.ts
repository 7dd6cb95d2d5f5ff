import type { Filter } from 'mongodb';
import { type Database, defineCollection } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

/**
 * Tool decisions recorded by /v1/memory/tools/select, so feedback can cite one by decision_id
 * (it then lands on the decision's task family and counts as the decision's run). Decisions are
 * bookkeeping, not memory: they live here rather than as nodes, so recall and forgetting never
 * see them.
 */
export interface ToolDecisionDoc {
  _id: string;
  created_at: string;
  actor: string;
  query_text: string | null;
  task_kind: string | null;
  goal: string | null;
  file_path: string | null;
  candidates: string[];
  selected_tool: string | null;
  family_id: string | null;
  ranking: { tool: string; score: number }[];
  rules_applied: string[];
}

export const toolDecisionsCollection = defineCollection({
  name: 'learning_tool_decisions',
  indexes: [
    {
      key: { tenant_id: 1, scope: 1, _id: 1 },
      name: 'scope_id',
      why: 'feedback resolves a decision_id inside its own tenant+scope (an id from elsewhere is not_found)',
    },
  ],
});

export class ToolDecisions {
  private readonly coll: ScopedCollection<ToolDecisionDoc>;
  constructor(db: Database, ref: ScopeRef) {
    this.coll = db.scoped<ToolDecisionDoc>(toolDecisionsCollection, ref);
  }

  async insert(doc: ToolDecisionDoc): Promise<void> {
    await this.coll.insertOne(doc);
  }

  async get(id: string): Promise<ToolDecisionDoc | null> {
    return this.coll.findOne({ _id: id } as Filter<ToolDecisionDoc>);
  }
}

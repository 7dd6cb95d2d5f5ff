import type { DefinitionDoc, DefinitionStatus, StatusChange } from '../../model/automation/records';
import { defineCollection, type Database } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const definitionsCollection = defineCollection({
  name: 'automation_definitions',
  indexes: [
    { key: { tenant_id: 1, scope: 1, automation_id: 1 }, unique: true, name: 'scope_automation_id', why: 'get/run/status look a definition up by its caller id; one id per scope' },
    { key: { tenant_id: 1, scope: 1, _id: 1 }, name: 'scope_id', why: 'list pages in creation order (_id > cursor)' },
    { key: { tenant_id: 1, scope: 1, status: 1, _id: 1 }, name: 'scope_status_id', why: 'list by status, paged in creation order' },
  ],
});

/** Automation definitions of one tenant+scope. */
export class AutomationDefinitions {
  private readonly coll: ScopedCollection<DefinitionDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<DefinitionDoc>(definitionsCollection, ref);
  }

  async get(automationId: string): Promise<DefinitionDoc | null> {
    return this.coll.findOne({ automation_id: automationId });
  }

  /** Null when the automation_id is taken (the caller decides: idempotent repeat or conflict). */
  async insert(doc: DefinitionDoc): Promise<DefinitionDoc | null> {
    return this.coll.insertNew(doc);
  }

  async list(opts: { status?: DefinitionStatus; after?: string; limit: number }): Promise<DefinitionDoc[]> {
    const filter: Record<string, unknown> = {};
    if (opts.status) filter.status = opts.status;
    if (opts.after) filter._id = { $gt: opts.after };
    return this.coll.find(filter, { sort: { _id: 1 }, limit: opts.limit });
  }

  /** Changes the status only if it is still `from` (two racing changes: one wins, the other sees it). */
  async setStatus(automationId: string, from: DefinitionStatus, change: StatusChange): Promise<DefinitionDoc | null> {
    return this.coll.findOneAndUpdate({ automation_id: automationId, status: from }, {
      $set: { status: change.to, updated_at: change.at },
      $push: { status_history: change },
    } as never);
  }
}

import type { HostReportDoc, StepDoc } from '../../model/replay/types';
import { type Database, defineCollection, isDuplicateKey } from '../database';
import type { ScopedCollection } from '../scoped-collection';
import type { ScopeRef } from '../scope';

export const stepsCollection = defineCollection({
  name: 'replay_steps',
  // _id (`<run key>:<step_index>`) makes (run, step_index) unique; this non-unique index serves
  // the ordered read of a run's steps (unique indexes serve exact matches only).
  indexes: [{ key: { tenant_id: 1, scope: 1, run_key: 1, step_index: 1 }, name: 'scope_run_step', why: 'runs/get lists a run’s steps in step_index order' }],
});

export const stepId = (runKey: string, stepIndex: number) => `${runKey}:${String(stepIndex).padStart(6, '0')}`;

export type StepPatch = Partial<Omit<StepDoc, '_id' | 'run_key' | 'run_id' | 'step_index'>>;

/** Steps of replay runs in one tenant+scope. */
export class ReplaySteps {
  private readonly coll: ScopedCollection<StepDoc>;
  constructor(
    db: Database,
    readonly ref: ScopeRef,
  ) {
    this.coll = db.scoped<StepDoc>(stepsCollection, ref);
  }

  async get(runKey: string, stepIndex: number): Promise<StepDoc | null> {
    return this.coll.findOne({ _id: stepId(runKey, stepIndex) });
  }

  /** Inserts a step; null when (run, step_index) exists already. */
  async insert(doc: StepDoc): Promise<StepDoc | null> {
    return this.coll.insertNew(doc);
  }

  /** Inserts the planned steps of a playbook run; steps already there (a retried activity) are kept. */
  async insertPlanned(docs: StepDoc[]): Promise<void> {
    if (docs.length === 0) return;
    try {
      await this.coll.insertMany(docs);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      for (const d of docs) await this.insert(d);
    }
  }

  /** Sets fields of a step when it is in one of `from` (null when it is not: someone else moved it). */
  async transition(runKey: string, stepIndex: number, from: StepDoc['status'][], patch: StepPatch): Promise<StepDoc | null> {
    return this.coll.findOneAndUpdate({ _id: stepId(runKey, stepIndex), status: { $in: from } }, { $set: patch });
  }

  async update(runKey: string, stepIndex: number, patch: StepPatch): Promise<StepDoc | null> {
    return this.coll.findOneAndUpdate({ _id: stepId(runKey, stepIndex) }, { $set: patch });
  }

  /** Moves every step of a run that is in `from` to `to` (ending a run: unreached steps are skipped). */
  async settle(runKey: string, from: StepDoc['status'][], patch: StepPatch, fromIndex = 0): Promise<void> {
    await this.coll.updateMany({ run_key: runKey, status: { $in: from }, step_index: { $gte: fromIndex } }, { $set: patch });
  }

  /**
   * Stores the host's report of a pending host step, once: null when the step is not pending or
   * was reported already (two reports racing: one wins).
   */
  async claimHostReport(runKey: string, stepIndex: number, report: HostReportDoc): Promise<StepDoc | null> {
    return this.coll.findOneAndUpdate({ _id: stepId(runKey, stepIndex), status: 'pending', host_report: null }, { $set: { host_report: report } });
  }

  /** Takes back a report the workflow could not be told about (the signal failed). */
  async releaseHostReport(runKey: string, stepIndex: number, reportId: string): Promise<void> {
    await this.coll.updateOne({ _id: stepId(runKey, stepIndex), status: 'pending', 'host_report.report_id': reportId } as never, { $set: { host_report: null } });
  }

  /** Notes that a report's signal was sent (again) now, by the real clock. */
  async noteSignalled(runKey: string, stepIndex: number, reportId: string, wallMs: number): Promise<void> {
    await this.coll.updateOne({ _id: stepId(runKey, stepIndex), 'host_report.report_id': reportId } as never, { $set: { 'host_report.signalled_wall_ms': wallMs } } as never);
  }

  async list(runKey: string): Promise<StepDoc[]> {
    return this.coll.find({ run_key: runKey }, { sort: { step_index: 1 } });
  }

  /** The steps of several runs in one query, in step_index order within each run. */
  async listMany(runKeys: string[]): Promise<StepDoc[]> {
    return this.coll.find({ run_key: { $in: runKeys } }, { sort: { run_key: 1, step_index: 1 } });
  }

  async count(runKey: string): Promise<number> {
    return this.coll.count({ run_key: runKey });
  }
}

import { join } from 'node:path';
import type { FamilyDeps, FamilyModule } from '../family-module';
import type { lifecycleRoutes } from '../../contract/families/lifecycle';
import { ColdStore } from '../../store/lifecycle/cold-store';
import { CountHistory } from '../../store/lifecycle/count-history';
import { ScopeStates } from '../../store/lifecycle/scope-state';
import type { MemoryServices } from '../memory/module';
import type { LifecycleCtx, LifecycleSettings } from './context';
import { decideNow } from './decide-now';
import { FeedbackRuns } from './feedback-runs';
import { createLifecycleHandlers } from './handlers';
import { HistoryRecorder } from './history';
import { scopeRegistrar } from './registry';
import { createLifecycleServices, type LifecycleServices } from './services';
import { ForgettingView } from './forgetting-view';

export type { LifecycleServices, RehydrationCandidate, ReviewCandidate } from './services';

/**
 * The lifecycle family: semantic forgetting (docs/forgetting.md). start() begins building the
 * in-process forgetting view in the background (a summary asked for before it is ready waits
 * LORE_BUILD_WAIT at most, then says the counts are being built); the operator itself runs in the worker (activities/lifecycle.ts).
 */
export function createLifecycleModule(
  deps: FamilyDeps,
  upstream: { memory: MemoryServices },
  settings: LifecycleSettings,
): FamilyModule<typeof lifecycleRoutes, LifecycleServices> {
  const log = deps.log.child('lifecycle');
  const states = new ScopeStates(deps.db);
  const register = scopeRegistrar(states, deps.clock, log);
  const view = new ForgettingView({
    store: upstream.memory.store,
    db: deps.db,
    log,
    onNewScope: (ref) => void register(ref),
    snapshotDir: settings.indexSnapshots ? join(settings.dataDir, 'index', 'forgetting', deps.db.db.databaseName) : null,
  });
  const feedback = new FeedbackRuns({ engine: deps.engine, clock: deps.clock, log });
  // Writes through this process register their scope at once (the view would within 15 s). New
  // nodes written with feedback counters (existing clients declare them) are decided at once, as
  // feedback given through nodes/activate is (decide-now.ts).
  const unsubscribe = upstream.memory.onWrite(async (e) => {
    await register(e.ref);
    const withFeedback = e.nodes.filter((w) => w.outcome === 'created' && w.node.feedback.positive + w.node.feedback.negative > 0).map((w) => w.node.id);
    if (withFeedback.length > 0) {
      await decideNow(ctx, e.ref, withFeedback);
      feedback.request(e.ref, withFeedback);
    }
  });
  const ctx: LifecycleCtx = {
    memory: upstream.memory,
    cold: new ColdStore(deps.db),
    states,
    view,
    feedback,
    engine: deps.engine,
    clock: deps.clock,
    log,
    buildWaitMs: settings.buildWaitMs,
  };
  // Samples of the scopes' counts over time (the inspector's chart).
  const history = new HistoryRecorder({ view, store: new CountHistory(deps.db), clock: deps.clock, log });
  const services: LifecycleServices = { ...createLifecycleServices(ctx), recordHistory: () => history.record() };
  return {
    handlers: createLifecycleHandlers(ctx, services, history),
    services,
    async start() {
      view.start();
      history.start();
    },
    readiness: () => view.readiness(),
    async stop() {
      unsubscribe();
      await feedback.stop();
      await history.stop();
      await view.stop();
    },
  };
}

import type { Handlers } from '../contract/handlers';
import type { RouteDef } from '../contract/route';
import type { Engine } from '../engine/engine';
import type { Log } from '../log';
import type { Clock } from '../model/clock';
import type { Database } from '../store/database';
import type { UiLink } from './temporal-ui';
import type { IndexStatus } from '../model/system/vocabulary';

/**
 * What the app hands every family's module (src/app/modules.ts): the services the process shares.
 * Never the whole Config: a family that reads settings declares them, narrow, in its context.ts
 * (`MemorySettings`, `SandboxSettings`, ...) and gets them from the app (src/app/settings.ts).
 */
export interface FamilyDeps {
  db: Database;
  engine: Engine;
  clock: Clock;
  log: Log;
  /** A run's page in the Temporal UI (null when this process does not know where the UI is). */
  uiLink: UiLink;
}

/**
 * A route family's runtime piece: its handlers plus optional start/stop (e.g. loading an
 * in-process index from the store before the API listens).
 */
export interface FamilyModule<T extends Record<string, RouteDef>, S = unknown> {
  handlers: Handlers<T>;
  /** What other families may call (e.g. memory's node store for learning). */
  services: S;
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** What it builds in the background after start (an index, a warm-up), for GET /health. */
  readiness?(): Readiness;
}

/** The state of something a family builds at start: `building` until it is done (GET /health `indexes`). */
export interface Readiness {
  status: IndexStatus;
  /** One line: what is done so far, or what failed. */
  detail: string;
}

import type { Handlers } from '../contract/handlers';
import type { RouteDef } from '../contract/route';

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
  status: 'building' | 'ready' | 'failed';
  /** One line: what is done so far, or what failed. */
  detail: string;
}

/**
 * The line a worker process prints once it polls its task queue. The API process (role `all`)
 * waits for it from its worker child; kept apart from worker.ts so the API never loads the
 * Temporal worker package (its native core and bundler) just to read this constant.
 */
export const WORKER_READY_MARKER = 'LORE_WORKER_READY';

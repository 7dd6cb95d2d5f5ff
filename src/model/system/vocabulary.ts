/** Values of /health: the process's role, the state of each dependency and of the indexes built at start. */

import { WORKSPACE_VIEWS } from '../sandbox/records';

/** What a process runs: the API, the worker, or both (LORE_ROLE). */
export const PROCESS_ROLES = ['api', 'worker', 'all'] as const;
export type ProcessRole = (typeof PROCESS_ROLES)[number];

export const HEALTH_STATUSES = ['ok', 'degraded', 'down'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** local: started and supervised by Lore; external: configured by address. */
export const DEPENDENCY_MODES = ['local', 'external'] as const;
export type DependencyMode = (typeof DEPENDENCY_MODES)[number];

export const INDEX_STATUSES = ['building', 'ready', 'failed'] as const;
export type IndexStatus = (typeof INDEX_STATUSES)[number];

/** How the worker sees sandbox workspaces, or off (no LORE_SANDBOX_WORKSPACE_ROOTS). */
export const WORKSPACE_VIEW_REPORTS = [...WORKSPACE_VIEWS, 'off'] as const;

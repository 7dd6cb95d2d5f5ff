import { AREAS as LOADGEN_AREAS, MODULES as LOADGEN_MODULES, mulberry32 } from '../retrieval/loadgen-docs';

/**
 * What the learning benchmarks share: their seeded generator and loadgen.mjs's vocabulary (areas,
 * modules, problems) for the noise writes around the task families. The generator and the first
 * areas and modules are loadgen's own (bench/retrieval/loadgen-docs.ts); the problems are a list of
 * their own (loadgen's first phrasings, in a different selection), kept as the benchmark's data.
 */
export { mulberry32 };

export const AREAS: string[] = LOADGEN_AREAS.slice(0, 30);

export const MODULES: string[] = LOADGEN_MODULES.slice(0, 17);

export const PROBLEMS = [
  'retry backoff',
  'pagination cursor',
  'CSV export encoding',
  'JWT refresh',
  'cache invalidation',
  'webhook signature check',
  'rate limit headers',
  'timezone date parsing',
  'unicode normalization',
  'N+1 query',
  'memory leak',
  'race condition',
  'config defaults',
  'upload size limit',
  'connection pool exhaustion',
  'flaky integration test',
  'null dereference on empty list',
  'migration ordering',
  'locale fallback',
  'idempotency keys',
  'graceful shutdown',
  'log redaction',
  'currency rounding',
  'slow full-text search',
  'duplicate email sends',
  'permission check bypass',
  'PDF rendering overflow',
  'feature flag evaluation',
];

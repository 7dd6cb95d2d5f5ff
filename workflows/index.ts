/**
 * Every workflow the worker runs. Deterministic code only: no I/O, no Date.now or Math.random
 * outside Temporal's, no Node modules. Side effects live in activities/.
 */
export * from './system';
export * from './packs';
export * from './lifecycle';
export * from './sandbox';
export * from './replay';
export * from './automation';

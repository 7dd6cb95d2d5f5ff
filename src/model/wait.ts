/**
 * Long-polling reads of run records (`runs/get` with `wait_ms` and `until`): the conditions a
 * waiter may name. `until` may also be a version from an earlier answer (any change since).
 */

export const WAIT_CONDITIONS = ['not_queued', 'paused_or_done', 'done'] as const;
export type WaitCondition = (typeof WAIT_CONDITIONS)[number];

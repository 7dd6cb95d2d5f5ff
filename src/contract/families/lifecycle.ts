/** Routes of the lifecycle family (see docs and contract.md). */
export const lifecycleRoutes = {} as const;

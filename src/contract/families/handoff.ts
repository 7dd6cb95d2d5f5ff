/** Routes of the handoff family (see docs and contract.md). */
export const handoffRoutes = {} as const;

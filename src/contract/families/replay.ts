/** Routes of the replay family (see docs and contract.md). */
export const replayRoutes = {} as const;

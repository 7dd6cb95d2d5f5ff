/** Routes of the sessions family (see docs and contract.md). */
export const sessionsRoutes = {} as const;

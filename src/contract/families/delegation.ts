/** Routes of the delegation family (see docs and contract.md). */
export const delegationRoutes = {} as const;

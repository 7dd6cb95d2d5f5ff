/** Routes of the learning family (see docs and contract.md). */
export const learningRoutes = {} as const;

/** Routes of the memory family (see docs and contract.md). */
export const memoryRoutes = {} as const;

/** Routes of the sandbox family (see docs and contract.md). */
export const sandboxRoutes = {} as const;

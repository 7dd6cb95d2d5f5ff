/** Routes of the packs family (see docs and contract.md). */
export const packsRoutes = {} as const;

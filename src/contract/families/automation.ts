/** Routes of the automation family (see docs and contract.md). */
export const automationRoutes = {} as const;

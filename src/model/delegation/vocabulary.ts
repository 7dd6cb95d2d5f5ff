/**
 * Delegation records (contract.md §5): requested → accepted → in_progress → completed | failed |
 * cancelled; a record in a final status keeps it (docs/memory.md, "Delegation records").
 */

export const DELEGATION_STATUSES = ['requested', 'accepted', 'in_progress', 'completed', 'failed', 'cancelled'] as const;
export type DelegationStatus = (typeof DELEGATION_STATUSES)[number];

/** How a delegation write ended: a new record, the same write again, or an update of the record. */
export const DELEGATION_WRITE_OUTCOMES = ['created', 'deduplicated', 'updated'] as const;

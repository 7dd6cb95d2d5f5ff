import { z } from 'zod';

/**
 * planning_summary.forgetting_summary and execution_summary.forgetting_summary (contract.md §4):
 * what the lifecycle operator decided and did in one scope, and what to do next.
 */
export const ForgettingSummary = z.object({
  semantic_action_counts: z.object({ retain: z.number().int(), demote: z.number().int(), archive: z.number().int(), review: z.number().int() }),
  lifecycle_state_counts: z.object({ active: z.number().int(), contested: z.number().int(), retired: z.number().int(), archived: z.number().int() }),
  archive_relocation_state_counts: z.object({ none: z.number().int(), candidate: z.number().int(), cold_archive: z.number().int() }),
  archive_relocation_target_counts: z.object({ none: z.number().int(), local_cold_store: z.number().int(), external_object_store: z.number().int() }),
  archive_payload_scope_counts: z.object({ none: z.number().int(), node: z.number().int(), anchor_payload: z.number().int() }),
  rehydration_mode_counts: z.object({ summary: z.number().int(), partial: z.number().int(), full: z.number().int(), differential: z.number().int() }),
  differential_rehydration_candidate_count: z.number().int(),
  tier_counts: z.object({ hot: z.number().int(), warm: z.number().int(), cold: z.number().int(), archive: z.number().int() }),
  recommended_action: z.string(),
});
export type ForgettingSummary = z.infer<typeof ForgettingSummary>;

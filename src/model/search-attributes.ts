import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes Lore sets on every workflow it starts, so operators can filter runs in the
 * Temporal UI (e.g. `LoreTenant = "acme" AND LoreRunKind = "automation"`). The local dev server
 * registers them at start; against a cluster Lore registers them through the operator API.
 */
export const SA = {
  tenant: defineSearchAttributeKey('LoreTenant', SearchAttributeType.KEYWORD),
  scope: defineSearchAttributeKey('LoreScope', SearchAttributeType.KEYWORD),
  runKind: defineSearchAttributeKey('LoreRunKind', SearchAttributeType.KEYWORD),
  automationId: defineSearchAttributeKey('LoreAutomationId', SearchAttributeType.KEYWORD),
  playbookId: defineSearchAttributeKey('LorePlaybookId', SearchAttributeType.KEYWORD),
} as const;

export const SEARCH_ATTRIBUTE_NAMES = Object.values(SA).map((k) => k.name);

/** The kinds of run Lore starts; the value of LoreRunKind. */
export type RunKind = 'automation' | 'playbook_run' | 'playbook_dispatch' | 'shadow_validation' | 'sandbox' | 'lifecycle' | 'pack_import';

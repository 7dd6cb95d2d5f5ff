/** A workflow's page in the Temporal UI, or null when Lore does not know where the UI is. */
export type UiLink = (workflowId: string) => string | null;

/**
 * Links into the UI the running process knows (LORE_TEMPORAL_UI_URL, else the UI of the local dev
 * server Lore started; null for an external cluster whose UI was not named).
 */
export function temporalUiLink(temporal: { uiUrl: string | null; namespace: string }): UiLink {
  const base = temporal.uiUrl;
  const ns = encodeURIComponent(temporal.namespace);
  return (workflowId) => (base && workflowId ? `${base}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}` : null);
}

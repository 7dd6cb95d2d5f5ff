import type { Config } from '../config';

/** A workflow's page in the Temporal UI, or null when Lore does not know where the UI is. */
export type UiLink = (workflowId: string) => string | null;

/** Links into the UI named by config (LORE_TEMPORAL_UI_URL, or the local dev server's UI). */
export function temporalUiLink(config: Pick<Config, 'temporal'>): UiLink {
  const base = config.temporal.uiUrl;
  const ns = encodeURIComponent(config.temporal.namespace);
  return (workflowId) => (base && workflowId ? `${base}/namespaces/${ns}/workflows/${encodeURIComponent(workflowId)}` : null);
}

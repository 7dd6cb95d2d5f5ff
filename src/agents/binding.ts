/**
 * Who an agent's calls act for: bound by the connection or the hook's configuration (API key,
 * ?scope=, LORE_MCP_TENANT / LORE_MCP_SCOPE, the project of the working directory), never chosen
 * by a model. Every call an agent makes carries exactly these three fields.
 */
export interface Binding {
  readonly tenant_id: string;
  readonly scope: string;
  readonly actor: string;
}

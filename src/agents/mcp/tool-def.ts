import type { z } from 'zod';
import type { RouteName } from '../../contract';
import type { Binding } from '../binding';

export type { Binding } from '../binding';

/**
 * One MCP tool = one entry: the contract route it calls and what a model needs to use it well.
 * Input and output schemas are derived from the route's zod schemas (schemas.ts), minus the
 * fields the connection binds (tenant_id, scope, actor); the optional shaping below narrows them.
 */
export interface ToolDef {
  /** snake_case verb_noun. */
  readonly name: string;
  readonly route: RouteName;
  readonly title: string;
  /** Written for a model: when to call it and what comes back; a function when that depends on this Lore's configuration. */
  readonly description: string | ((env: ToolEnvironment) => string);
  readonly annotations: {
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: boolean;
  };
  readonly input?: {
    /** Only these route fields are offered (others stay the route's defaults). */
    readonly pick?: readonly string[];
    /** Route fields the model must give although the route treats them as optional. */
    readonly require?: readonly string[];
    /** Required route fields the tool fills when the model leaves them out (before validation). */
    readonly defaults?: Readonly<Record<string, (ctx: { readonly binding: Binding }) => unknown>>;
    /** Route fields the tool always sets (not offered to the model). */
    readonly fixed?: Readonly<Record<string, unknown>>;
  };
  readonly output?: { readonly pick: readonly string[] } | { readonly schema: z.ZodObject; readonly shape: (response: Record<string, unknown>) => Record<string, unknown> };
  /** Side effects the call needs first (execute_command makes sure its sandbox session exists). */
  readonly before?: (args: Record<string, unknown>, ctx: ToolContext) => Promise<void>;
  /** The short text result beside structuredContent (what a model reads first). */
  readonly summarize: (output: Record<string, unknown>) => string;
  /** Listed only when this holds (execute_command: the sandbox can run commands). */
  readonly when?: (env: ToolEnvironment) => boolean;
}

export interface ToolContext {
  readonly binding: Binding;
  /** Calls a contract route through the SDK transport, with the binding added. */
  readonly callRoute: (route: RouteName, body: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

/** What the tools of a connection depend on, as Lore reports it now (GET /health). */
export interface ToolEnvironment {
  readonly sandbox: SandboxState;
}

/** GET /health's `sandbox`: on or off, whether commands can run (null: no worker has reported yet), and under which isolation. */
export interface SandboxState {
  readonly enabled: boolean;
  readonly available: boolean | null;
  /** `bubblewrap`, `none` (the operator runs commands unisolated), `unavailable`, `unknown`, `disabled`. */
  readonly isolation: string;
}

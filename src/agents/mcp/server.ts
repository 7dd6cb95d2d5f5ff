import { McpServer } from '@modelcontextprotocol/server';
import { routes, type RouteName } from '../../contract';
import { ApiError, TransportError } from '../../sdk/errors';
import type { Caller } from '../../sdk/transport';
import { bindingFields, inputSchema, toolOutput, toStructured } from './schemas';
import type { Binding, ToolContext, ToolDef, ToolEnvironment } from './tool-def';
import { TOOLS } from './tools';

/**
 * One MCP server instance for one binding: every tool of the table that applies, each calling its
 * contract route through the SDK transport (HTTP to a running Lore for stdio; Fastify's inject for
 * /mcp inside the API). Built per connection (stdio) or per request (stateless HTTP); what is
 * derived from the contract is computed once per process (schemas.ts).
 */

export const SERVER_INSTRUCTIONS =
  'Lore is this project’s execution memory. At the start of a task call start_task with the task: it returns the first step learned from similar past work (or null). Use recall_memory to find earlier work and get_memory to read one node whole. When a task is done, write_memory with an execution (goal, steps, target files, outcome) so the next similar task starts better; report_tool_outcome says whether a tool helped. store_handoff/recover_handoff carry unfinished work between sessions.';

export interface LoreMcpOptions {
  binding: Binding;
  /** The SDK transport to Lore's routes. */
  caller: Caller;
  env: ToolEnvironment;
  version: string;
  tools?: readonly ToolDef[];
}

/** The tools a connection lists. */
export const toolsFor = (env: ToolEnvironment, tools: readonly ToolDef[] = TOOLS): ToolDef[] => tools.filter((t) => !t.when || t.when(env));

export function createLoreMcpServer(opts: LoreMcpOptions): McpServer {
  const server = new McpServer({ name: 'lore', version: opts.version }, { instructions: SERVER_INSTRUCTIONS });
  const ctx: ToolContext = {
    binding: opts.binding,
    callRoute: (name: RouteName, body) => {
      const r = routes[name];
      return opts.caller(r.method, r.path, { ...body, ...bindingFields(opts.binding) });
    },
  };
  for (const def of toolsFor(opts.env, opts.tools)) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: typeof def.description === 'function' ? def.description(opts.env) : def.description,
        inputSchema: inputSchema(def, ctx),
        outputSchema: toolOutput(def).schema,
        annotations: { title: def.title, ...def.annotations },
      },
      async (validated: unknown) => {
        // What inputSchema's validate returned: the route request without the binding.
        const args = validated as Record<string, unknown>;
        try {
          await def.before?.(args, ctx);
          const structured = toStructured(def, await ctx.callRoute(def.route, args));
          return { content: [{ type: 'text' as const, text: def.summarize(structured) }], structuredContent: structured };
        } catch (err) {
          return { content: [{ type: 'text' as const, text: toolErrorText(err) }], isError: true };
        }
      },
    );
  }
  return server;
}

/** A failed call as a model reads it: the contract's code and message, and each field at fault. */
export function toolErrorText(err: unknown): string {
  if (err instanceof ApiError) {
    const issues = Array.isArray(err.details.issues) ? (err.details.issues as { path?: unknown; message?: unknown }[]) : [];
    const lines = issues.slice(0, 10).map((i) => `- ${String(i.path ?? '') || '(request)'}: ${String(i.message ?? '')}`);
    return [`${err.code}: ${err.message}${err.retryable ? ' (retrying may help)' : ''}`, ...lines].join('\n');
  }
  if (err instanceof TransportError) return `Lore is not reachable: ${err.message}`;
  return `internal error: ${(err as Error)?.message ?? String(err)}`;
}

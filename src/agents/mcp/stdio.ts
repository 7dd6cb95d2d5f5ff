import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createCaller, type Caller } from '../../sdk/transport';
import type { AgentConfig } from '../config';
import { projectScope } from '../project';
import { createLoreMcpServer } from './server';
import type { Binding, SandboxState } from './tool-def';

/** Who `lore mcp` calls act as. */
export const STDIO_MCP_ACTOR = 'mcp';

/**
 * `lore mcp`: an MCP server on stdin/stdout for a Lore running at LORE_URL. Tenant and scope come
 * from LORE_MCP_TENANT / LORE_MCP_SCOPE (the scope defaulting to the project the working
 * directory belongs to, as for the hooks), never from the model. Diagnostics go to stderr: stdout
 * belongs to the protocol.
 */
export async function runStdioMcp(config: AgentConfig, opts: { cwd: string; version: string }): Promise<void> {
  const binding: Binding = { tenant_id: config.tenant, scope: config.scope ?? projectScope(opts.cwd), actor: STDIO_MCP_ACTOR };
  const caller = createCaller({ baseUrl: config.url, apiKey: config.apiKey ?? undefined, timeoutMs: 11 * 60_000, defaults: {} });
  const probe = createCaller({ baseUrl: config.url, apiKey: config.apiKey ?? undefined, timeoutMs: 3000, defaults: {} });
  process.stderr.write(`lore mcp: tenant '${binding.tenant_id}', scope '${binding.scope}', Lore at ${config.url}\n`);
  const handle = serveStdio(
    async () =>
      createLoreMcpServer({
        binding,
        caller,
        env: { sandbox: await sandboxState(probe) },
        version: opts.version,
      }),
    { onerror: (err) => process.stderr.write(`lore mcp: ${err.message}\n`) },
  );
  await new Promise<void>((resolve) => {
    process.stdin.once('close', resolve);
    process.stdin.once('end', resolve);
  });
  await handle.close().catch(() => {});
}

/** The sandbox of the Lore it talks to (GET /health): execute_command is listed, and described, from it. */
async function sandboxState(call: Caller): Promise<SandboxState> {
  try {
    const health = (await call('GET', '/health', {})) as { sandbox?: Partial<SandboxState> };
    const s = health.sandbox ?? {};
    return { enabled: s.enabled === true, available: typeof s.available === 'boolean' ? s.available : null, isolation: typeof s.isolation === 'string' ? s.isolation : 'unknown' };
  } catch (err) {
    process.stderr.write(`lore mcp: could not ask Lore about its sandbox (${(err as Error).message}); execute_command is not listed\n`);
    return { enabled: false, available: false, isolation: 'unknown' };
  }
}

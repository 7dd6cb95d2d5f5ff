import { runHookCli } from '../agents/hook/cli';

/**
 * `lore hook`'s own entry (bin/lore.mjs goes straight here): the agent runs it on every event, so
 * it loads the hook handler and the SDK's transport and nothing else — no zod, no contract, no
 * server, Temporal or MongoDB packages.
 */
void runHookCli(process.env, undefined, process.argv.slice(3));

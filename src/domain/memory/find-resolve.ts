import { LoreError, notFound } from '../../contract/errors';
import type { memoryRoutes } from '../../contract/families/memory';
import type { RouteInput } from '../../contract/route';
import type { ScopeRef } from '../../store/scope';
import type { StoredNode } from '../../store/memory/nodes';
import type { MemoryServices } from './context';
import { parseUri } from './uri';
import { edgeView, nodeView, revisionView } from './views';
import { decodeCursor, encodeCursor } from './cursor';

type In<K extends keyof typeof memoryRoutes> = RouteInput<(typeof memoryRoutes)[K]>;

/** memory.find: nodes by exact ids, by text (ranked), or by filters in id order (paged). */
export async function findNodes(m: MemoryServices, ref: ScopeRef, input: In<'memory.find'>) {
  const nodes = m.nodes(ref);
  const opts = { includeText: input.include_text };
  const after = (n: StoredNode) => !input.created_after || n.created_at >= new Date(input.created_after).toISOString();
  const before = (n: StoredNode) => !input.created_before || n.created_at < new Date(input.created_before).toISOString();
  const matches = (n: StoredNode) =>
    (!input.types || input.types.includes(n.type)) &&
    (!input.kinds || (n.kind !== null && input.kinds.includes(n.kind))) &&
    (!input.tiers || input.tiers.includes(n.tier)) &&
    (!input.tags || input.tags.every((t) => n.tags.includes(t))) &&
    after(n) &&
    before(n);
  const clientIds = [...(input.client_id ? [input.client_id] : []), ...(input.client_ids ?? [])];
  const nodeIds = [...(input.ids ?? []), ...(input.node_ids ?? []), ...(input.anchor_ids ?? [])];
  // Exact lookups (node ids on _id, client ids on the unique client_key index). Given both, a
  // node must match both; every other filter still applies.
  let exact: StoredNode[] | null = null;
  if (clientIds.length > 0 || nodeIds.length > 0) {
    const byId = nodeIds.length > 0 ? await nodes.getMany([...new Set(nodeIds)]) : null;
    const byClient = clientIds.length > 0 ? await nodes.getManyByClientId([...new Set(clientIds)]) : null;
    exact = byId && byClient ? byId.filter((n) => byClient.some((c) => c.id === n.id)) : (byId ?? byClient ?? []);
  }
  if (input.query_text !== undefined && input.query_text.trim() !== '') {
    // Text: ranked as recall_text ranks (lexical, and vectors when configured), best first.
    const r = await m.recall(ref, {
      text: input.query_text,
      limit: input.limit,
      types: input.types,
      kinds: input.kinds,
      tiers: input.tiers,
      tags: input.tags,
      include_archived: true,
      expand: false,
    });
    const allowed = exact ? new Set(exact.map((n) => n.id)) : null;
    const ids = r.hits.map((h) => h.node.id).filter((id) => !allowed || allowed.has(id));
    const loaded = new Map((await nodes.getMany(ids)).map((n) => [n.id, n]));
    const ranked = ids.map((id) => loaded.get(id)).filter((n): n is StoredNode => !!n && matches(n));
    return { nodes: ranked.map((n) => nodeView(n, ref, opts)), next_cursor: null };
  }
  if (exact)
    return {
      nodes: exact
        .filter(matches)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((n) => nodeView(n, ref, opts)),
      next_cursor: null,
    };
  const cursor = input.cursor !== undefined ? decodeCursor(input.cursor, 'memory.find') : undefined;
  const page = await nodes.find(
    {
      types: input.types,
      kinds: input.kinds,
      tiers: input.tiers,
      tags_all: input.tags,
      created_after: input.created_after ? new Date(input.created_after).toISOString() : undefined,
      created_before: input.created_before ? new Date(input.created_before).toISOString() : undefined,
    },
    { limit: input.limit + 1, after: cursor },
  );
  const more = page.length > input.limit;
  const shown = more ? page.slice(0, input.limit) : page;
  return {
    nodes: shown.map((n) => nodeView(n, ref, opts)),
    next_cursor: more ? encodeCursor('memory.find', shown[shown.length - 1]!.id) : null,
  };
}

async function lookupNode(m: MemoryServices, ref: ScopeRef, input: { id?: string; client_id?: string; uri?: string }): Promise<StoredNode> {
  const nodes = m.nodes(ref);
  if (input.id !== undefined) {
    const n = await nodes.get(input.id);
    if (!n) throw notFound('node', input.id, ref.scope, { id: input.id });
    return n;
  }
  if (input.client_id !== undefined) {
    const n = await nodes.getByClientId(input.client_id);
    if (!n) throw notFound('node with client_id', input.client_id, ref.scope, { client_id: input.client_id });
    return n;
  }
  const uri = input.uri!;
  const parsed = parseUri(uri);
  if (!parsed) {
    throw new LoreError('invalid_request', `uri '${uri}' is not a Lore node URI (lore://<tenant>/<scope>/node/<id> or …/client/<client_id>)`, {
      issues: [{ path: 'uri', message: 'not a lore:// node URI' }],
    });
  }
  // A URI of another tenant or scope does not resolve here (and does not say whether it exists).
  const n = parsed.tenant_id !== ref.tenant_id || parsed.scope !== ref.scope ? null : parsed.kind === 'node' ? await nodes.get(parsed.key) : await nodes.getByClientId(parsed.key);
  if (!n) throw notFound('node', uri, ref.scope, { uri });
  return n;
}

/** memory.resolve: one node by id, client id or URI, with its edges and revisions when asked. */
export async function resolveNode(m: MemoryServices, ref: ScopeRef, input: In<'memory.resolve'>) {
  const node = await lookupNode(m, ref, input);
  const nodes = m.nodes(ref);
  const [edges, revisions] = await Promise.all([
    input.include_edges ? nodes.edgesOf(node.id) : Promise.resolve([]),
    input.include_revisions ? nodes.revisionsOf(node.id) : Promise.resolve([]),
  ]);
  return { node: nodeView(node, ref), edges: edges.map(edgeView), revisions: revisions.map(revisionView) };
}

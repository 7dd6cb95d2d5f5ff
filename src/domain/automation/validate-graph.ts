import type { Issue } from '../../contract/errors';
import { unknownKeyIssue } from '../../contract/keys';
import { parseExpression } from './expression';
import {
  ancestorsOf,
  AUTOMATION_EDGE_TYPES,
  AUTOMATION_NODE_KINDS,
  BINARY_CONDITION_OPS,
  CONDITION_OPS,
  incomingEdges,
  NODE_ID_PATTERN,
  ON_TIMEOUT_ACTIONS,
  type ArtifactSpec,
  type AutomationNodeKind,
  type ConditionOp,
  type EdgeType,
  type Graph,
  type GraphEdge,
  type GraphNode,
  type OnTimeout,
} from '../../model/automation/graph';
import { parseApprovalTimeout } from './approval-timeout';
import { cyclesOf, topologicalOrder } from './graph-order';
import { collectRefs } from './references';

/**
 * Checks a graph and collects EVERY problem (contract.md §7), each with the path of the field at
 * fault, so a caller fixes them in one round. Pure: playbook existence is checked separately
 * (checkPlaybooks) because it needs the store.
 */

const KINDS: readonly AutomationNodeKind[] = AUTOMATION_NODE_KINDS;
const EDGE_TYPES: readonly EdgeType[] = AUTOMATION_EDGE_TYPES;
const OPS: readonly ConditionOp[] = CONDITION_OPS;
const BINARY_OPS: readonly ConditionOp[] = BINARY_CONDITION_OPS;
const ON_TIMEOUT: readonly OnTimeout[] = ON_TIMEOUT_ACTIONS;
const CALLER_ID = /^[A-Za-z0-9._:@/+=-]{1,200}$/;
const MAX_ARTIFACTS = 50;
/** Nesting of inputs and condition operands (MongoDB keeps 100 levels; references are walked recursively). */
export const MAX_VALUE_DEPTH = 32;
/** The graph travels in the run's workflow input and history: keep it well under Temporal's 2 MB payload limit. */
export const MAX_GRAPH_JSON_BYTES = 1024 * 1024;

/** True when the value nests deeper than max (iterative: a hostile value cannot overflow the stack). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) stack.push({ v: child, d: d + 1 });
  }
  return false;
}

export interface GraphCheck {
  issues: Issue[];
  /** The normalised graph (known fields only, edge types defaulted); complete only when issues is empty. */
  graph: Graph;
  /** A topological order, null when there is a cycle. */
  order: string[] | null;
  /** Where each (validly named) node sits in the request, for issues found later. */
  paths: Map<string, string>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The keys each part of a graph may have. A graph is closed: a key Lore does not know is an issue
 * naming it (and the accepted ones), never dropped, since a dropped field changes what runs.
 * `expression` is the condition form existing clients write (docs/automation.md, "Conditions").
 */
const GRAPH_KEYS = ['nodes', 'edges'] as const;
const NODE_KEYS = ['node_id', 'kind', 'name', 'inputs', 'playbook_id', 'version', 'mode', 'approval_key', 'timeout', 'on_timeout', 'condition', 'expression', 'artifacts'] as const;
const EDGE_KEYS = ['from', 'to', 'type'] as const;
const CONDITION_KEYS = ['left', 'op', 'right'] as const;
const ARTIFACT_KEYS = ['path', 'from_node'] as const;

function checkKeys(item: Obj, at: string, accepted: readonly string[], issues: Issue[]) {
  for (const key of Object.keys(item)) if (!accepted.includes(key)) issues.push(unknownKeyIssue(at, key, accepted));
}
const article = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`);
const show = (v: unknown) => (typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v)));

export function validateGraph(raw: { nodes: unknown[]; edges: unknown[] }): GraphCheck {
  const issues: Issue[] = [];
  const add = (path: string, message: string) => issues.push({ path, message });
  checkKeys(raw as unknown as Obj, 'graph', GRAPH_KEYS, issues);
  const nodes: GraphNode[] = [];
  const firstIndex = new Map<string, number>();
  const nodePath = new Map<string, string>();
  const byId = new Map<string, GraphNode>();
  const unknownKind = new Set<string>();

  if (raw.nodes.length === 0) add('graph.nodes', 'the graph has no nodes');

  raw.nodes.forEach((item, i) => {
    const at = `graph.nodes[${i}]`;
    if (!isObj(item)) return add(at, 'must be an object');
    checkKeys(item, at, NODE_KEYS, issues);
    const id = item.node_id;
    let idOk = false;
    if (id === undefined || id === null || id === '') add(`${at}.node_id`, 'node_id is required and must not be empty');
    else if (typeof id !== 'string') add(`${at}.node_id`, 'node_id must be a string');
    else if (!NODE_ID_PATTERN.test(id)) add(`${at}.node_id`, `node_id ${show(id)} must be 1-100 chars of [A-Za-z0-9_-] starting with a letter or digit`);
    else if (firstIndex.has(id)) add(`${at}.node_id`, `duplicate node_id ${show(id)} (first used by graph.nodes[${firstIndex.get(id)}])`);
    else idOk = true;
    if (idOk) {
      firstIndex.set(id as string, i);
      nodePath.set(id as string, at);
    }
    const registerAs = idOk ? (id as string) : null;

    const kind = item.kind;
    if (kind === undefined || kind === null || kind === '') add(`${at}.kind`, `kind is required: one of ${KINDS.join(', ')}`);
    else if (!KINDS.includes(kind as AutomationNodeKind)) add(`${at}.kind`, `unknown kind ${show(kind)}; expected one of ${KINDS.join(', ')}`);

    const node: GraphNode = {
      node_id: typeof id === 'string' ? id : `#${i}`,
      kind: (KINDS.includes(kind as AutomationNodeKind) ? kind : 'approval') as AutomationNodeKind,
      inputs: {},
    };
    if (item.name !== undefined) {
      if (typeof item.name !== 'string' || item.name.length > 200) add(`${at}.name`, 'name must be a string of at most 200 characters');
      else node.name = item.name;
    }
    if (item.inputs !== undefined && item.inputs !== null) {
      if (!isObj(item.inputs)) add(`${at}.inputs`, 'inputs must be an object');
      else if (nestsDeeperThan(item.inputs, MAX_VALUE_DEPTH)) add(`${at}.inputs`, `inputs nest deeper than ${MAX_VALUE_DEPTH} levels`);
      else node.inputs = item.inputs;
    }

    if (kind === 'playbook') {
      if (typeof item.playbook_id !== 'string' || item.playbook_id === '') add(`${at}.playbook_id`, 'playbook nodes need playbook_id');
      else if (!CALLER_ID.test(item.playbook_id)) add(`${at}.playbook_id`, 'playbook_id must be 1-200 chars of [A-Za-z0-9._:@/+=-]');
      else node.playbook_id = item.playbook_id;
      if (item.version === undefined || item.version === null) add(`${at}.version`, 'playbook nodes need version (an integer ≥ 1)');
      else if (typeof item.version !== 'number' || !Number.isInteger(item.version) || item.version < 1) add(`${at}.version`, 'version must be an integer ≥ 1');
      else node.version = item.version;
      // Stored only when guided, so graphs made before modes existed keep their content hash.
      if (item.mode !== undefined && item.mode !== null && item.mode !== 'strict') {
        if (item.mode === 'guided') node.mode = 'guided';
        else add(`${at}.mode`, `mode must be 'strict' (command steps only, the default) or 'guided' (the run waits for the host at host steps)`);
      }
    } else if (kind === 'approval') {
      if (typeof item.approval_key !== 'string' || item.approval_key === '') add(`${at}.approval_key`, 'approval nodes need approval_key');
      else if (!CALLER_ID.test(item.approval_key)) add(`${at}.approval_key`, 'approval_key must be 1-200 chars of [A-Za-z0-9._:@/+=-]');
      else node.approval_key = item.approval_key;
      checkApprovalTimeout(item, at, add, node);
    } else if (kind === 'condition') {
      if (item.expression !== undefined && item.condition !== undefined) add(`${at}.expression`, 'give condition or expression, not both');
      else if (item.expression !== undefined) {
        const parsed = parseExpression(item.expression);
        if ('error' in parsed) add(`${at}.expression`, parsed.error);
        else checkCondition(parsed.condition, `${at}.expression`, add, node, issues);
      } else if (nestsDeeperThan(item.condition, MAX_VALUE_DEPTH)) add(`${at}.condition`, `condition nests deeper than ${MAX_VALUE_DEPTH} levels`);
      else checkCondition(item.condition, `${at}.condition`, add, node, issues);
    } else if (kind === 'artifact_gate') {
      checkArtifacts(item.artifacts, `${at}.artifacts`, add, node, issues);
    }
    nodes.push(node);
    if (registerAs) byId.set(registerAs, node);
    if (!KINDS.includes(kind as AutomationNodeKind) && registerAs) unknownKind.add(registerAs);
  });

  const known = new Set(byId.keys());
  const edges: GraphEdge[] = [];
  const edgeSeen = new Map<string, number>();
  raw.edges.forEach((item, i) => {
    const at = `graph.edges[${i}]`;
    if (!isObj(item)) return add(at, 'must be an object');
    checkKeys(item, at, EDGE_KEYS, issues);
    let ok = true;
    for (const end of ['from', 'to'] as const) {
      const v = item[end];
      if (typeof v !== 'string' || v === '') {
        add(`${at}.${end}`, `${end} is required (a node_id)`);
        ok = false;
      } else if (!known.has(v)) {
        add(`${at}.${end}`, `edge ${end === 'from' ? 'from' : 'to'} unknown node ${show(v)}`);
        ok = false;
      }
    }
    const type = item.type === undefined || item.type === null ? 'on_success' : item.type;
    if (!EDGE_TYPES.includes(type as EdgeType)) {
      add(`${at}.type`, `unknown edge type ${show(type)}; expected on_success or on_false`);
      ok = false;
    }
    if (!ok) return;
    const e: GraphEdge = { from: item.from as string, to: item.to as string, type: type as EdgeType };
    const fromNode = byId.get(e.from)!;
    if (e.type === 'on_false' && fromNode.kind !== 'condition' && !unknownKind.has(e.from))
      add(`${at}.type`, `on_false edges leave condition nodes only; ${show(e.from)} is ${article(fromNode.kind)} node`);
    const key = `${e.from}\u0000${e.to}\u0000${e.type}`;
    if (edgeSeen.has(key)) return add(at, `duplicate edge ${e.from} → ${e.to} (${e.type}), first at graph.edges[${edgeSeen.get(key)}]`);
    edgeSeen.set(key, i);
    edges.push(e);
  });

  // A node fed by both branches of one condition can never run (every incoming edge must hold).
  for (const e of edges) {
    if (e.type === 'on_false' && edgeSeen.has(`${e.from}\u0000${e.to}\u0000on_success`)) {
      add(
        `graph.edges[${edgeSeen.get(`${e.from}\u0000${e.to}\u0000on_false`)}]`,
        `node ${show(e.to)} has both on_success and on_false edges from condition ${show(e.from)}; it could never run`,
      );
    }
  }

  const graph: Graph = { nodes, edges };
  const bytes = Buffer.byteLength(JSON.stringify(graph));
  if (bytes > MAX_GRAPH_JSON_BYTES) add('graph', `the graph is ${bytes} bytes as JSON; the limit is ${MAX_GRAPH_JSON_BYTES}`);
  const cycles = cyclesOf(graph);
  for (const cycle of cycles) add('graph.edges', `cycle: ${[...cycle, cycle[0]].join(' → ')}`);

  checkReferences(graph, nodePath, add);
  return { issues, graph, order: cycles.length === 0 ? topologicalOrder(graph) : null, paths: nodePath };
}

function checkApprovalTimeout(item: Obj, at: string, add: (p: string, m: string) => void, node: GraphNode) {
  if (item.timeout !== undefined && item.timeout !== null) {
    const t = parseApprovalTimeout(item.timeout);
    if ('error' in t) add(`${at}.timeout`, t.error);
    else {
      node.timeout = item.timeout as string | number;
      node.timeout_ms = t.ms;
    }
  }
  if (item.on_timeout !== undefined && item.on_timeout !== null) {
    if (!ON_TIMEOUT.includes(item.on_timeout as OnTimeout)) add(`${at}.on_timeout`, `on_timeout must be one of ${ON_TIMEOUT.join(', ')}`);
    else if (item.timeout === undefined || item.timeout === null) add(`${at}.on_timeout`, 'on_timeout needs a timeout');
    else node.on_timeout = item.on_timeout as OnTimeout;
  }
  if (node.timeout_ms !== undefined && node.on_timeout === undefined) node.on_timeout = 'reject';
}

function checkCondition(c: unknown, at: string, add: (p: string, m: string) => void, node: GraphNode, issues: Issue[]) {
  if (!isObj(c)) return add(at, 'condition nodes need condition {left, op, right} (or expression)');
  checkKeys(c, at, CONDITION_KEYS, issues);
  const op = c.op as ConditionOp;
  if (c.op === undefined) add(`${at}.op`, `op is required: one of ${OPS.join(', ')}`);
  else if (!OPS.includes(op)) add(`${at}.op`, `unknown op ${show(c.op)}; expected one of ${OPS.join(', ')}`);
  if (!('left' in c) || c.left === undefined) add(`${at}.left`, 'left is required (a reference such as $nodes.build.summary.status, or a value)');
  if (BINARY_OPS.includes(op) && (!('right' in c) || c.right === undefined)) add(`${at}.right`, `right is required for op ${op}`);
  if (op === 'gt' || op === 'lt') {
    for (const side of ['left', 'right'] as const) {
      const v = c[side];
      if (v !== undefined && typeof v !== 'number' && !(typeof v === 'string')) add(`${at}.${side}`, `${op} compares numbers or strings; ${side} is ${JSON.stringify(v)}`);
    }
  }
  // Kept even with a bad op, so references in it are still checked (the graph is used only when valid).
  node.condition = { left: c.left, op, ...(BINARY_OPS.includes(op) || !OPS.includes(op) ? { right: c.right } : {}) };
}

function checkArtifacts(a: unknown, at: string, add: (p: string, m: string) => void, node: GraphNode, issues: Issue[]) {
  if (!Array.isArray(a) || a.length === 0) return add(at, 'artifact_gate nodes need artifacts: [{path, from_node?}] (at least one)');
  if (a.length > MAX_ARTIFACTS) return add(at, `at most ${MAX_ARTIFACTS} artifacts per gate`);
  const out: ArtifactSpec[] = [];
  a.forEach((item, i) => {
    const p = `${at}[${i}]`;
    if (!isObj(item)) return add(p, 'must be an object {path, from_node?}');
    checkKeys(item, p, ARTIFACT_KEYS, issues);
    const path = item.path;
    if (typeof path !== 'string' || path.trim() === '') add(`${p}.path`, 'path is required');
    else if (path.length > 1024 || path.includes('\u0000')) add(`${p}.path`, 'path must be at most 1024 characters without NUL');
    else if (path.startsWith('/') || path.split('/').some((s) => s === '..'))
      add(`${p}.path`, `path ${show(path)} must be relative to the run's artifacts/ directory, without '..'`);
    if (item.from_node !== undefined && item.from_node !== null && typeof item.from_node !== 'string') add(`${p}.from_node`, 'from_node must be a node_id');
    if (typeof path === 'string') out.push({ path, ...(typeof item.from_node === 'string' ? { from_node: item.from_node } : {}) });
  });
  node.artifacts = out;
}

/** References and artifact sources must name nodes upstream (ancestors) of the node using them. */
function checkReferences(graph: Graph, nodePath: Map<string, string>, add: (p: string, m: string) => void) {
  const incoming = incomingEdges(graph);
  const byId = new Map(graph.nodes.map((n) => [n.node_id, n]));
  for (const node of graph.nodes) {
    const at = nodePath.get(node.node_id);
    if (!at) continue; // a node with a bad id: its own issue says so
    const upstream = ancestorsOf(node.node_id, incoming);
    const refs = [...collectRefs(node.inputs, `${at}.inputs`)];
    if (node.condition) {
      collectRefs(node.condition.left, `${at}.condition.left`, refs);
      collectRefs(node.condition.right, `${at}.condition.right`, refs);
    }
    for (const r of refs) {
      if (!r.ref) add(r.at, `malformed reference ${show(r.raw)}; expected $nodes.<node_id>.<path>`);
      else if (!byId.has(r.ref.node_id)) add(r.at, `reference ${show(r.raw)} names unknown node ${show(r.ref.node_id)}`);
      else if (!upstream.has(r.ref.node_id)) add(r.at, `reference ${show(r.raw)} names node ${show(r.ref.node_id)}, which is not upstream of ${show(node.node_id)}`);
    }
    if (node.kind === 'artifact_gate' && node.artifacts) {
      const producers = [...upstream].filter((id) => byId.get(id)?.kind === 'playbook');
      node.artifacts.forEach((a, i) => {
        if (a.from_node === undefined) {
          if (producers.length === 0) add(`${at}.artifacts[${i}]`, `no playbook node is upstream of ${show(node.node_id)} to produce ${show(a.path)}`);
        } else if (!byId.has(a.from_node)) add(`${at}.artifacts[${i}].from_node`, `unknown node ${show(a.from_node)}`);
        else if (!upstream.has(a.from_node)) add(`${at}.artifacts[${i}].from_node`, `node ${show(a.from_node)} is not upstream of ${show(node.node_id)}`);
        else if (byId.get(a.from_node)!.kind !== 'playbook')
          add(`${at}.artifacts[${i}].from_node`, `node ${show(a.from_node)} is ${article(byId.get(a.from_node)!.kind)} node; artifacts come from playbook nodes`);
      });
    }
  }
}

import type { Graph } from '../../model/automation/graph';

/**
 * Cycles (strongly connected components with more than one node, or a self-edge), each as a node
 * path, so validation can name them. Iterative Tarjan: 200 nodes never overflow the stack.
 */
export function cyclesOf(graph: Graph): string[][] {
  const out = new Map<string, string[]>();
  for (const n of graph.nodes) out.set(n.node_id, []);
  const selfLoops = new Set<string>();
  for (const e of graph.edges) {
    out.get(e.from)?.push(e.to);
    if (e.from === e.to) selfLoops.add(e.from);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];

  for (const start of out.keys()) {
    if (idx.has(start)) continue;
    const work: { v: string; i: number }[] = [{ v: start, i: 0 }];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const succ = out.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++]!;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, idx.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) === idx.get(top.v)) {
        const comp: string[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
          if (w === top.v) break;
        }
        if (comp.length > 1) cycles.push(orderCycle(comp, out));
        else if (selfLoops.has(top.v)) cycles.push([top.v]);
      }
    }
  }
  return cycles;
}

/** A readable walk around one component: start at its first node, follow edges inside it. */
function orderCycle(comp: string[], out: Map<string, string[]>): string[] {
  const inComp = new Set(comp);
  const start = comp[comp.length - 1]!;
  const path = [start];
  const seen = new Set(path);
  let cur = start;
  for (;;) {
    const next = (out.get(cur) ?? []).find((w) => inComp.has(w) && !seen.has(w));
    if (!next) break;
    path.push(next);
    seen.add(next);
    cur = next;
  }
  // Components whose members are not all on one simple path are listed in full after the walk.
  for (const v of comp) if (!seen.has(v)) path.push(v);
  return path;
}

/** Kahn's order, ties broken by position in the graph, so it is stable across calls. */
export function topologicalOrder(graph: Graph): string[] {
  const pos = new Map(graph.nodes.map((n, i) => [n.node_id, i]));
  const indeg = new Map(graph.nodes.map((n) => [n.node_id, 0]));
  const out = new Map<string, string[]>();
  for (const e of graph.edges) {
    indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1);
    out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  }
  const ready = graph.nodes.filter((n) => indeg.get(n.node_id) === 0).map((n) => n.node_id);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => pos.get(a)! - pos.get(b)!);
    const v = ready.shift()!;
    order.push(v);
    for (const w of out.get(v) ?? []) {
      const d = indeg.get(w)! - 1;
      indeg.set(w, d);
      if (d === 0) ready.push(w);
    }
  }
  return order;
}

import type { z } from 'zod';
import type { WriteInput } from '../../contract/families/memory';
import type { ExecutionInput } from './extract';
import type { Warning, WriteEdge, WriteItem } from './write';

/**
 * Maps the three request forms of /v1/memory/write onto write items (docs/memory.md, "Write"):
 *
 * 1. input_text (and/or execution) alone: one node (type `event` unless given) with the request's
 *    client_id, title, tier, tags, slots and importance.
 * 2. nodes[] (the batch form existing clients use): one node each; a node's text is its `text`,
 *    else `text_summary`; its summary is `text_summary` (or `summary`).
 * 3. Both: when exactly one batch node has no `text` of its own, input_text becomes that node's
 *    text (the request's evidence for it; the execution object goes with it too) and the
 *    request's client_id fills in a missing one. Otherwise input_text is stored as its own event
 *    node, and the response says so in warnings (nothing a caller sends is silently dropped).
 *
 * What existing clients declare in a node's slots is read as the node field it means
 * (`declaredFields`): `anchor_v1` with anchor_kind "workflow" makes the node a workflow anchor
 * (kind `workflow_anchor`), and `feedback_positive` / `feedback_negative` are the feedback
 * counters a new node starts with. A node may name its own `id` (a UUID).
 */

type WriteRequest = z.output<typeof WriteInput>;

/** A readable text for an execution-only write, so it is recallable like any other evidence. */
export function renderExecution(ex: ExecutionInput): string {
  const lines: string[] = [];
  if (ex.goal) lines.push(`Goal: ${ex.goal}`);
  if (ex.task_kind) lines.push(`Task kind: ${ex.task_kind}`);
  if (ex.run_id) lines.push(`Run: ${ex.run_id}`);
  (ex.steps ?? []).forEach((s, i) => {
    const parts = [s.tool, s.file_path, s.command ? `\`${s.command}\`` : null].filter(Boolean).join(' ');
    lines.push(`Step ${i + 1}: ${parts}${s.outcome ? ` → ${s.outcome}` : ''}`);
  });
  if (ex.target_files && ex.target_files.length > 0) lines.push(`Target files: ${ex.target_files.join(', ')}`);
  if (ex.error_signature) lines.push(`Error: ${ex.error_signature}`);
  if (ex.outcome) lines.push(`Outcome: ${ex.outcome}`);
  if (ex.next_action) lines.push(`Next action: ${ex.next_action}`);
  if (ex.acceptance_checks && ex.acceptance_checks.length > 0) lines.push(`Acceptance checks: ${ex.acceptance_checks.join('; ')}`);
  return lines.join('\n');
}

const nonEmpty = (s: string | null | undefined): s is string => typeof s === 'string' && s.trim() !== '';

const MAX_DECLARED_FEEDBACK = 1_000_000;
const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? Math.min(v, MAX_DECLARED_FEEDBACK) : null);

/** Node fields existing clients write inside slots (see above). */
export function declaredFields(slots: Record<string, unknown> | undefined): Pick<WriteItem, 'kind' | 'feedback'> {
  if (!slots) return {};
  const anchor = slots.anchor_v1 && typeof slots.anchor_v1 === 'object' ? (slots.anchor_v1 as Record<string, unknown>) : null;
  const positive = count(slots.feedback_positive);
  const negative = count(slots.feedback_negative);
  return {
    ...(anchor?.anchor_kind === 'workflow' ? { kind: 'workflow_anchor' as const } : {}),
    ...(positive !== null || negative !== null ? { feedback: { positive: positive ?? 0, negative: negative ?? 0 } } : {}),
  };
}

export function itemsFromWrite(req: WriteRequest): { items: WriteItem[]; edges: WriteEdge[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const execution = (req.execution ?? null) as ExecutionInput | null;
  const inputText = nonEmpty(req.input_text) ? req.input_text : null;
  const topLevel = (): WriteItem => ({
    client_id: req.client_id ?? null,
    type: req.type,
    tier: req.tier,
    title: req.title ?? (execution?.goal ? execution.goal.slice(0, 200) : null),
    text: inputText ?? (execution ? renderExecution(execution) : ''),
    tags: req.tags,
    slots: req.slots,
    importance: req.importance,
    salience: req.salience,
    confidence: req.confidence,
    execution,
    ...declaredFields(req.slots),
  });
  const batch = req.nodes ?? [];
  const edges: WriteEdge[] = (req.edges ?? []).map((e) => ({ src: e.src, dst: e.dst, type: e.type }));
  if (batch.length === 0) return { items: [topLevel()], edges, warnings };

  const items: WriteItem[] = batch.map((n) => {
    const summary = n.text_summary ?? n.summary ?? null;
    return {
      id: n.id ?? null,
      client_id: n.client_id ?? null,
      type: n.type,
      tier: n.tier,
      title: n.title ?? null,
      text: n.text ?? summary ?? n.title ?? '',
      summary,
      tags: n.tags,
      slots: n.slots,
      importance: n.importance,
      salience: n.salience,
      confidence: n.confidence,
      ...declaredFields(n.slots),
    };
  });
  const withoutText = batch.map((n, i) => (nonEmpty(n.text) ? -1 : i)).filter((i) => i >= 0);
  if (inputText !== null || execution) {
    if (withoutText.length === 1) {
      const i = withoutText[0]!;
      const item = items[i]!;
      if (inputText !== null) item.text = inputText;
      item.execution = execution;
      item.client_id ??= req.client_id ?? null;
      item.title ??= req.title ?? null;
    } else if (inputText !== null) {
      items.push(topLevel());
      warnings.push({
        code: 'input_text_stored_separately',
        message: 'input_text was stored as its own event node: no single batch node without text could take it',
      });
    } else {
      items[0]!.execution = execution;
    }
  }
  return { items, edges, warnings };
}

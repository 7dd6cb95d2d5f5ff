import type { StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { Clock } from '../../model/clock';
import type { MemoryServices } from '../memory/module';
import type { NodeKind, NodeType } from '../../model/memory/node';
import type { Rendered } from './render';

/**
 * Writes learned nodes through the memory family, so they are indexed for recall and visible to
 * packs and forgetting like any node. Creation goes through memory's write path (client_id makes
 * it idempotent); later changes are runtime-owned field updates (new seq, no revision), indexed
 * before the call returns. `source: 'learning'` tells learning's own write listener to skip them.
 */

export const LEARNING_SOURCE = 'learning';

export interface LearnedNodeSpec {
  client_id: string;
  type: NodeType;
  kind: NodeKind | null;
  slotName: string;
  slot: unknown;
  rendered: Rendered;
  confidence: number;
  tags: string[];
}

export class Persist {
  constructor(
    private readonly memory: MemoryServices,
    private readonly clock: Clock,
    /** Told about every seq this process produced, so catch-up can skip its own changes. */
    private readonly local: (seq: number) => void,
  ) {}

  async create(ref: ScopeRef, actor: string, spec: LearnedNodeSpec): Promise<StoredNode> {
    const r = await this.memory.write(
      ref,
      actor,
      [
        {
          client_id: spec.client_id,
          type: spec.type,
          kind: spec.kind,
          title: spec.rendered.title,
          text: spec.rendered.text,
          summary: spec.rendered.summary,
          tags: spec.tags,
          slots: { [spec.slotName]: spec.slot },
          confidence: clamp01(spec.confidence),
          extract: false,
        },
      ],
      [],
      { source: LEARNING_SOURCE },
    );
    const node = r.nodes[0]!.node;
    this.local(node.seq);
    return node;
  }

  /**
   * `archived`: the node's payload lives in the cold store (lifecycle); only the slot and
   * confidence change, so the archived text is not replaced behind the cold store's back.
   */
  async update(ref: ScopeRef, id: string, slotName: string, slot: unknown, rendered: Rendered, confidence: number, archived = false): Promise<StoredNode | null> {
    const text = archived ? {} : { title: rendered.title, text: rendered.text, summary: rendered.summary };
    const node = await this.memory
      .nodes(ref)
      .update(id, { set: { ...text, confidence: clamp01(confidence), [`slots.${slotName}`]: slot } }, this.clock.now(), { omit: [`slots.${slotName}`] });
    if (node) {
      node.slots = { ...node.slots, [slotName]: slot };
      this.local(node.seq);
      this.memory.indexed([node]);
    }
    return node;
  }
}

const clamp01 = (x: number) => Math.max(0, Math.min(1, Number.isFinite(x) ? x : 0.5));

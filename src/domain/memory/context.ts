import type { Embedder } from '../../retrieval';
import type { EncoderSettings, EncoderStatus } from '../../retrieval/embedders/resolve';
import type { NodeStore, ScopedNodes, StoredNode } from '../../store/memory/nodes';
import type { ScopeRef } from '../../store/scope';
import type { VectorCache } from './embedding-queue';
import type { RecallIndex } from './recall-index';
import type { RecallOutcome, RecallQuery } from './recall';
import type { Warning, WriteEdge, WriteItem, WriteListener, WriteResult } from './write';

/** The settings the memory family reads (docs/configuration.md), handed in by the app (src/app/settings.ts). */
export interface MemorySettings {
  /** LORE_EMBEDDINGS and its companions: the encoder recall's vectors come from. */
  readonly embeddings: EncoderSettings;
  /** LORE_INDEX_SNAPSHOTS: the recall index's snapshots, under `<dataDir>/index/recall/`. */
  readonly indexSnapshots: boolean;
  readonly dataDir: string;
}

/**
 * What the memory family offers the families built on it (sessions, handoff, packs, learning,
 * lifecycle): the node store, the one write path, recall, and the write-observer hook.
 */
export interface MemoryServices {
  readonly store: NodeStore;
  readonly index: RecallIndex;
  nodes(ref: ScopeRef): ScopedNodes;
  /** Writes nodes (and edges) the way /v1/memory/write does: extraction, idempotency, indexing, listeners. */
  write(ref: ScopeRef, actor: string, items: WriteItem[], edges?: WriteEdge[], opts?: { source?: string; warnings?: Warning[] }): Promise<WriteResult>;
  /**
   * Nodes changed directly through nodes(ref).update(...) (tier, slots, feedback): index them
   * before acknowledging, so this process's next recall sees the change. Other processes catch up.
   */
  indexed(nodes: StoredNode[]): void;
  recall(ref: ScopeRef, q: RecallQuery): Promise<RecallOutcome>;
  /** Applies every change other processes acknowledged before this call (recall does this itself). */
  catchUp(): Promise<void>;
  /**
   * Subscribes to every write through write(). The listener's `workflows_updated` and
   * `patterns_updated` fill the write response's `learning`; a throwing listener becomes a
   * warning, never a failed write. Returns an unsubscribe function.
   */
  onWrite(listener: WriteListener): () => void;
  /** Diagnostics: index size, catch-up watermark and holes, embedding queue. */
  stats(): Record<string, unknown>;
  /**
   * The process's sentence encoder, decided at start (retrieval/embedders/resolve.ts): learning
   * embeds goals with the same one. Before start: none, status off.
   */
  /**
   * The encoder memory decided on at its start, its status, and the vector cache with the model id
   * its keys are made with (null when there is no encoder or the cache is unusable here): learning
   * embeds its workflows' goals with the same encoder and keeps their vectors in the same cache.
   */
  encoder(): { embedder: Embedder | null; status: EncoderStatus & { pending?: number; lag_ms?: number }; vectorCache: { store: VectorCache; model: string } | null };
}

// Lore retrieval core: analysis, lexical (BM25) index, vector index, fusion, embedders.
// Pure library: no HTTP, no storage, no workflow engine.

export { analyze, createAnalyzer, stem, type Analyzer, type AnalyzerOptions } from './analyze';
export { porter2 } from './stemmer';
export { DEFAULT_STOPWORDS } from './stopwords';
export {
  LexicalIndex,
  type DocFields,
  type FeedbackOptions,
  type LexicalIndexOptions,
  type LexicalIndexStats,
  type SearchHit,
  type SearchOptions,
  type SequenceContextOptions,
} from './lexical-index';
export { VectorIndex, type VectorHit, type VectorSearchOptions } from './vector-index';
export { rrfFuse, scoreBreakdown, type FusedItem, type RankedItem, type RrfOptions } from './fuse';
export { contextRerank, type ContextOptions } from './context';
export { hybridSearch, type HybridHit, type HybridOptions, type HybridQuery, type ScoreBreakdown } from './hybrid';
export { PartitionedIndexes, type Partition } from './partitions';
export { searchAcross, type LexicalSearchable } from './multi-search';
export { RECALL_DEFAULTS } from './defaults';
export { growFloat32, growUint32, growUint8, IdTable, IntSet } from './arena';
export type { Column, ColumnType, Frozen, FrozenColumn } from './frozen';
export {
  createEmbedder,
  embedderConfigFrom,
  type EmbeddingSettings,
  EmbeddingError,
  localEmbedderAvailable,
  type Embedder,
  type EmbedderConfig,
  type EmbeddingProvider,
} from './embedders/index';

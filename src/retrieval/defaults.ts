// The configuration Lore's recall route uses, chosen on LoCoMo conversations 26 and 30,
// confirmed on 41-43 and checked on 44, 47-50 (see bench/retrieval/README.md).

import type { LexicalIndexOptions, SearchOptions } from './lexical-index';

export const RECALL_DEFAULTS: { index: LexicalIndexOptions; search: SearchOptions; rrfK: number; rrfWeights: [number, number] } = {
  index: { k1: 1.2, b: 0.5, fieldWeights: { title: 2 } },
  search: {
    feedback: { docs: 5, terms: 10, originalWeight: 0.7, maxDocFreq: 0.2 },
    context: { weight: 0.3, window: 2, decay: 1 },
  },
  rrfK: 5,
  rrfWeights: [1, 0.3],
};

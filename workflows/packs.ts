/** Workflows of the packs family (deterministic code only). */
export {};

/** Workflows of the replay family (deterministic code only). */
export {};

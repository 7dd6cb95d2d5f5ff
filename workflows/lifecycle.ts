/** Workflows of the lifecycle family (deterministic code only). */
export {};

/** Workflows of the sandbox family (deterministic code only). */
export {};

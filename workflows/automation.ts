/** Workflows of the automation family (deterministic code only). */
export {};

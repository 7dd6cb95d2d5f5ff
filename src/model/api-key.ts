/** An API key as configured (LORE_API_KEYS) and checked by the HTTP layer (src/http/auth.ts). */
export interface ApiKey {
  key: string;
  /** When set, the key may only act for this tenant. */
  tenant: string | null;
}

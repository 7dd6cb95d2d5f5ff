// Calls to the Lore API from the inspector. The API key (when LORE_API_KEYS is set) is typed in
// once per tab and kept in sessionStorage: it leaves with the tab and is sent to this origin only.

const KEY = 'lore.inspector.apiKey';

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? 'http_error';
    this.details = body?.error?.details ?? {};
  }
}

export const getKey = () => sessionStorage.getItem(KEY);
export const setKey = (k) => (k ? sessionStorage.setItem(KEY, k) : sessionStorage.removeItem(KEY));

let askForKey = null;
/** fn(message) resolves true when the user gave a key (the call is then retried), false otherwise. */
export const onUnauthorized = (fn) => (askForKey = fn);

/** POST a JSON body (GET when body is null); retries once per key the user types after a 401. */
export async function call(path, body = {}) {
  for (;;) {
    const headers = { accept: 'application/json' };
    const key = getKey();
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== null) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method: body === null ? 'GET' : 'POST', headers, body: body === null ? undefined : JSON.stringify(body) });
    const data = await res.json().catch(() => null);
    if (res.status === 401 && askForKey && (await askForKey(data?.error?.message))) continue;
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }
}

/** The tenant and scope every scoped call is made in (set by the pickers). */
export const where = { tenant: 'default', scope: 'default' };

/** A call inside the picked tenant and scope. */
export const scoped = (path, body = {}) => call(path, { tenant_id: where.tenant, scope: where.scope, ...body });

let health = null;
/** GET /health once per page load: the Temporal UI address and namespace the run links use. */
export async function temporalInfo() {
  health ??= call('/health', null).catch(() => null);
  const h = await health;
  return { uiUrl: h?.dependencies?.temporal?.ui_url ?? null, namespace: h?.dependencies?.temporal?.namespace ?? 'default' };
}

/** The Temporal UI page of one workflow, or null when the UI's address is unknown. */
export async function temporalLink(workflowId) {
  const t = await temporalInfo();
  if (!t.uiUrl || !workflowId) return null;
  return `${t.uiUrl}/namespaces/${encodeURIComponent(t.namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

import { networkInterfaces } from 'node:os';
import { LoreError } from '../contract/errors';
import { declaresBody } from './drain';

/**
 * What a web page must not be able to do to a Lore on the developer's machine (docs/security.md):
 *
 * - **DNS rebinding.** A page at `evil.example` whose name is made to resolve to 127.0.0.1 is
 *   same-origin with Lore in the browser's eyes; only the Host header it sends (`evil.example`)
 *   gives it away. So a request is answered only under the names Lore is served under: the
 *   loopback names, the address it binds (every address of the machine for a wildcard bind), and
 *   LORE_ALLOWED_HOSTS. Anything else is `host_not_allowed` (421). A request without a Host header
 *   (HTTP/1.0 tools) is not from a browser and passes.
 * - **Cross-site requests.** A page on another origin can send requests without reading their
 *   answers; that is enough to write memory or post a forged hook event. Browsers say where a
 *   request comes from (`Origin`, and `Sec-Fetch-Site` on everything else), so a request from any
 *   origin but Lore's own (the inspector's page) is `origin_not_allowed` (403); a top-level
 *   navigation (a link to the inspector) is not a request a page can read or forge data with, and
 *   passes. No CORS header is ever sent, so no other origin can read an answer either.
 * - **Simple requests.** The forms a browser sends without a preflight are text/plain, form or
 *   multipart bodies; a route that takes JSON takes `application/json` only
 *   (`unsupported_media_type`, 415), so such a body never reaches a handler.
 */

export interface RequestGuardOptions {
  /** The address the API binds (LORE_HOST). */
  bindHost: string;
  /** LORE_ALLOWED_HOSTS, normalised by config.ts (a leading dot: the domain and its subdomains). */
  allowedHosts: readonly string[];
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_BINDS = new Set(['0.0.0.0', '[::]']);
/** How many Host and Origin values that passed are remembered (requestGuard). */
const PASSED_CACHE_SIZE = 256;
/** How often the machine's addresses are read again after a miss (a wildcard bind: DHCP, a new interface). */
const INTERFACES_TTL_MS = 10_000;

/** A Host header (or an allowed name) as a URL sees it: lower case, IPv6 in brackets, no trailing dot; null when it is not a host. */
export function parseHost(value: string): { hostname: string; port: string } | null {
  if (value === '' || /[\s/\\@?#]/.test(value)) return null;
  try {
    const u = new URL(`http://${value}`);
    return { hostname: u.hostname.replace(/\.$/, ''), port: u.port };
  } catch {
    return null;
  }
}

function normalisedName(name: string): string {
  const bracketed = name.includes(':') && !name.startsWith('[') ? `[${name}]` : name;
  return parseHost(bracketed)?.hostname ?? name.toLowerCase();
}

function machineAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) out.add(normalisedName(a.address.split('%')[0]!));
  return out;
}

/** The names a request's Host may carry: a predicate, since a wildcard bind accepts the machine's addresses as they are now. */
export function allowedHostPredicate(opts: RequestGuardOptions): (hostname: string) => boolean {
  const exact = new Set<string>(LOOPBACK_NAMES);
  const suffixes: string[] = [];
  for (const h of opts.allowedHosts) {
    if (h.startsWith('.')) suffixes.push(h);
    else exact.add(h);
  }
  const bind = normalisedName(opts.bindHost);
  const wildcard = WILDCARD_BINDS.has(bind);
  if (!wildcard) exact.add(bind);
  let addresses = wildcard ? machineAddresses() : new Set<string>();
  let readAt = Date.now();
  return (hostname) => {
    if (exact.has(hostname)) return true;
    if (suffixes.some((s) => hostname === s.slice(1) || hostname.endsWith(s))) return true;
    if (!wildcard) return false;
    if (addresses.has(hostname)) return true;
    // Wall time: how stale the list of the machine's addresses may be.
    if (Date.now() - readAt > INTERFACES_TTL_MS) {
      addresses = machineAddresses();
      readAt = Date.now();
      return addresses.has(hostname);
    }
    return false;
  };
}

/** The parts of a request the guard reads. */
export interface GuardedRequest {
  method?: string;
  headers: Record<string, string | string[] | undefined>;
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * A request's Host, Origin and media type checked; a LoreError for the first thing refused, null
 * when it may go on. Called before the body is read.
 */
export function requestGuard(opts: RequestGuardOptions): (req: GuardedRequest) => LoreError | null {
  const hostAllowed = allowedHostPredicate(opts);
  const listed = new Set(opts.allowedHosts.filter((h) => !h.startsWith('.')));
  const listedSuffixes = opts.allowedHosts.filter((h) => h.startsWith('.'));
  /** An origin on a name the operator listed in LORE_ALLOWED_HOSTS is Lore's own (a proxy in front may change the port). */
  const listedOrigin = (hostname: string) => listed.has(hostname) || listedSuffixes.some((s) => hostname === s.slice(1) || hostname.endsWith(s));

  // Host and Origin values that passed, as sent: a client sends the same few over and over, and
  // parsing them as URLs is most of the guard's cost. Bounded, so no stream of names can grow it.
  const passed = new Set<string>();
  const remember = (key: string) => {
    if (passed.size >= PASSED_CACHE_SIZE) passed.clear();
    passed.add(key);
  };

  return (req) => {
    const hostHeader = one(req.headers.host);
    if (hostHeader !== undefined && !passed.has(hostHeader)) {
      const host = parseHost(hostHeader);
      if (host === null || !hostAllowed(host.hostname)) {
        return new LoreError(
          'host_not_allowed',
          `this Lore does not answer under the name '${hostHeader.slice(0, 256)}' (Host header): it answers under loopback names, the address it binds and LORE_ALLOWED_HOSTS; add the name to LORE_ALLOWED_HOSTS if it is yours`,
          { host: hostHeader.slice(0, 256), setting: 'LORE_ALLOWED_HOSTS' },
        );
      }
      remember(hostHeader);
    }

    const origin = one(req.headers.origin);
    if (origin !== undefined) {
      // A Host header never holds a newline, so this key cannot be taken for one.
      const key = `${origin}\n${hostHeader ?? ''}`;
      if (!passed.has(key)) {
        if (!sameOrigin(origin, hostHeader) && !listedHostOf(origin, listedOrigin)) {
          return new LoreError(
            'origin_not_allowed',
            `requests from the web origin '${origin.slice(0, 256)}' are refused: only Lore's own pages (the inspector) may call it from a browser`,
            {
              origin: origin.slice(0, 256),
            },
          );
        }
        remember(key);
      }
    } else {
      // No Origin: a browser's no-cors request (an <img>, a <script>) still says where it comes from.
      const site = one(req.headers['sec-fetch-site']);
      const navigation = one(req.headers['sec-fetch-mode']) === 'navigate' && (req.method === 'GET' || req.method === 'HEAD');
      if ((site === 'cross-site' || site === 'same-site') && !navigation) {
        return new LoreError(
          'origin_not_allowed',
          `requests from other web sites are refused (Sec-Fetch-Site: ${site}): only Lore's own pages (the inspector) may call it from a browser`,
          {
            sec_fetch_site: site,
          },
        );
      }
    }

    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS') {
      const type = one(req.headers['content-type']);
      if (type === undefined ? declaresBody(req.headers) : mediaType(type) !== 'application/json') {
        return new LoreError(
          'unsupported_media_type',
          `request bodies must be JSON: send content-type: application/json${type === undefined ? '' : ` (got '${type.slice(0, 128)}')`}`,
          {
            content_type: type === undefined ? null : type.slice(0, 128),
            accepted: ['application/json'],
          },
        );
      }
    }
    return null;
  };
}

/** `text/plain; charset=utf-8` → `text/plain`. */
export const mediaType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/** The Origin is the page Lore itself served: same scheme-relative host and port as the request's Host. */
function sameOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  try {
    const o = new URL(origin);
    if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
    // Parsed with the origin's scheme, so default ports compare equal (https://x and Host: x).
    return o.host === new URL(`${o.protocol}//${hostHeader}`).host;
  } catch {
    return false;
  }
}

function listedHostOf(origin: string, listed: (hostname: string) => boolean): boolean {
  try {
    const o = new URL(origin);
    return (o.protocol === 'http:' || o.protocol === 'https:') && listed(o.hostname.replace(/\.$/, ''));
  } catch {
    return false;
  }
}

// The URLs that name several servers at once, `scheme://[user:pass@]host:port,host:port/path`:
// `redis+cluster://` (seed nodes) and `redis+sentinel://` (Sentinels, then the master's name).
// The WHATWG URL parser rejects a comma-separated host list, hence this small parser.

export interface HostPort {
  host: string;
  port: number;
}

export interface MultiHostUrl {
  nodes: HostPort[];
  username?: string;
  password?: string;
  /** The path's non-empty segments, decoded (`/mymaster/2` → ['mymaster', '2']). */
  path: string[];
}

/** Parses `url`, which must start with `prefix`; a host without a port gets `defaultPort`. */
export function parseMultiHostUrl(prefix: string, url: string, defaultPort: number): MultiHostUrl {
  if (!url.startsWith(prefix)) throw new TypeError(`URL must start with ${prefix}`);
  let rest = url.slice(prefix.length).replace(/[?#].*$/, '');
  const slash = rest.indexOf('/');
  const path = slash === -1 ? [] : rest.slice(slash + 1).split('/').filter((s) => s !== '').map(decodeURIComponent);
  if (slash !== -1) rest = rest.slice(0, slash);
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    const cred = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = cred.indexOf(':');
    if (colon === -1) password = decodeURIComponent(cred);
    else {
      username = decodeURIComponent(cred.slice(0, colon)) || undefined;
      password = decodeURIComponent(cred.slice(colon + 1));
    }
  }
  const nodes = rest.split(',').filter((s) => s !== '').map((hp) => {
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hp);
    if (!m) throw new TypeError(`bad host "${hp}" in ${url}`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port: m[2] === undefined ? defaultPort : Number(m[2]) };
  });
  if (nodes.length === 0) throw new TypeError(`no hosts in ${url}`);
  return { nodes, ...(username === undefined ? {} : { username }), ...(password === undefined ? {} : { password }), path };
}

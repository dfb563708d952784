// A client on another host, for protected-mode tests: a network namespace joined to this one by
// a veth pair (needs root and `ip`), so the server sees a non-loopback peer address. Where a
// namespace cannot be created, connections come from the local address 127.0.0.5 instead, which
// Redis also treats as non-loopback (it only trusts exactly 127.0.0.1 and ::1).
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as net from 'node:net';

export interface ProbeResult {
  /** Everything the server sent. */
  data: Buffer;
  /** True when the server closed the connection within the wait. */
  closed: boolean;
}

export interface ForeignHost {
  /** How the foreign client is made ("network namespace" or "source address 127.0.0.5"). */
  readonly method: string;
  /** The server's address as the foreign client reaches it; servers must listen on it (or 0.0.0.0). */
  readonly serverAddress: string;
  /** Connects from the foreign host, sends `request`, collects replies for `waitMs`. */
  probe(port: number, request: string, waitMs?: number): Promise<ProbeResult>;
  destroy(): void;
}

const PROBE = `
const net = require('net');
const [host, port, request, waitMs] = process.argv.slice(1);
const chunks = [];
let closed = false;
const s = net.connect(Number(port), host, () => s.write(request));
s.on('data', (d) => chunks.push(d));
s.on('error', () => {});
s.on('close', () => { closed = true; done(); });
const timer = setTimeout(done, Number(waitMs));
function done() {
  clearTimeout(timer);
  process.stdout.write(JSON.stringify({ data: Buffer.concat(chunks).toString('base64'), closed }));
  process.exit(0);
}
`;

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/** A namespace named after this process, with 10.<a>.<b>.1 here and .2 inside. */
function createNamespace(): ForeignHost {
  const tag = `sl${process.pid % 100000}`;
  const ns = `${tag}ns`;
  const [outer, inner] = [`${tag}a`, `${tag}b`];
  const subnet = `10.${200 + (process.pid % 50)}.${process.pid % 250}`;
  try {
    ip('netns', 'add', ns);
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', inner, 'netns', ns);
    ip('addr', 'add', `${subnet}.1/24`, 'dev', outer);
    ip('link', 'set', outer, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${subnet}.2/24`, 'dev', inner);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', inner, 'up');
  } catch (err) {
    destroyNamespace(ns, outer);
    throw err;
  }
  return {
    method: 'network namespace',
    serverAddress: `${subnet}.1`,
    probe: async (port, request, waitMs = 1000) => {
      const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', PROBE, `${subnet}.1`, String(port), request, String(waitMs)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await once(child, 'close');
      const parsed = JSON.parse(out) as { data: string; closed: boolean };
      return { data: Buffer.from(parsed.data, 'base64'), closed: parsed.closed };
    },
    destroy: () => destroyNamespace(ns, outer),
  };
}

function destroyNamespace(ns: string, outer: string): void {
  for (const args of [['link', 'del', outer], ['netns', 'del', ns]]) {
    try {
      ip(...args);
    } catch {
      // not created
    }
  }
}

function sourceAddressHost(): ForeignHost {
  return {
    method: 'source address 127.0.0.5',
    serverAddress: '127.0.0.1',
    probe: (port, request, waitMs = 1000) =>
      new Promise((resolve) => {
        const chunks: Buffer[] = [];
        const s = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.5' }, () => s.write(request));
        const finish = (closed: boolean) => {
          clearTimeout(timer);
          s.destroy();
          resolve({ data: Buffer.concat(chunks), closed });
        };
        const timer = setTimeout(() => finish(false), waitMs);
        s.on('data', (d: Buffer) => chunks.push(d));
        s.on('error', () => {});
        s.on('close', () => finish(true));
      }),
    destroy: () => {},
  };
}

/** A namespace when the machine allows it (root with `ip`), else the 127.0.0.5 source address. */
export function foreignHost(): ForeignHost {
  try {
    return createNamespace();
  } catch (err) {
    console.error(`# no network namespace (${(err as Error).message.split('\n')[0]}); using source address 127.0.0.5`);
    return sourceAddressHost();
  }
}

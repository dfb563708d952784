// A raw RESP client for server tests: sends bytes as given and decodes replies (RESP2 and RESP3)
// into tagged values, so tests can assert the exact wire types.
import * as net from 'node:net';
import { encodeCommand } from '../../src/resp/encoder.js';

export type Wire =
  | { t: 'simple'; v: string }
  | { t: 'error'; v: string }
  | { t: 'int'; v: bigint }
  | { t: 'bulk'; v: string | null }
  | { t: 'array'; v: Wire[] | null }
  | { t: 'map'; v: Array<[Wire, Wire]> }
  | { t: 'set'; v: Wire[] }
  | { t: 'null' }
  | { t: 'double'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'verbatim'; v: string }
  | { t: 'push'; v: Wire[] };

/** Decodes one reply at `pos`; returns null when incomplete. */
export function decode(buf: Buffer, pos: number): { value: Wire; end: number } | null {
  const lineEnd = buf.indexOf('\r\n', pos);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[pos]!);
  const line = buf.toString('latin1', pos + 1, lineEnd);
  const next = lineEnd + 2;
  const aggregate = (n: number, make: (items: Wire[]) => Wire) => {
    const items: Wire[] = [];
    let at = next;
    for (let i = 0; i < n; i++) {
      const r = decode(buf, at);
      if (r === null) return null;
      items.push(r.value);
      at = r.end;
    }
    return { value: make(items), end: at };
  };
  const blob = (make: (s: string) => Wire) => {
    const n = Number(line);
    if (buf.length < next + n + 2) return null;
    return { value: make(buf.toString('utf8', next, next + n)), end: next + n + 2 };
  };
  switch (type) {
    case '+': return { value: { t: 'simple', v: line }, end: next };
    case '-': return { value: { t: 'error', v: line }, end: next };
    case ':': return { value: { t: 'int', v: BigInt(line) }, end: next };
    case '_': return { value: { t: 'null' }, end: next };
    case ',': return { value: { t: 'double', v: line }, end: next };
    case '#': return { value: { t: 'bool', v: line === 't' }, end: next };
    case '$':
      if (line === '-1') return { value: { t: 'bulk', v: null }, end: next };
      return blob((s) => ({ t: 'bulk', v: s }));
    case '=': return blob((s) => ({ t: 'verbatim', v: s }));
    case '*':
      if (line === '-1') return { value: { t: 'array', v: null }, end: next };
      return aggregate(Number(line), (items) => ({ t: 'array', v: items }));
    case '~': return aggregate(Number(line), (items) => ({ t: 'set', v: items }));
    case '>': return aggregate(Number(line), (items) => ({ t: 'push', v: items }));
    case '%': {
      const r = aggregate(Number(line) * 2, (items) => ({ t: 'array', v: items }));
      if (r === null) return null;
      const flat = (r.value as { v: Wire[] }).v;
      const pairs: Array<[Wire, Wire]> = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
      return { value: { t: 'map', v: pairs }, end: r.end };
    }
    default:
      throw new Error(`bad reply type ${JSON.stringify(type)} in ${JSON.stringify(buf.toString('latin1', pos, pos + 40))}`);
  }
}

/** A connection that queues decoded replies and reports when the server closes it. */
export class RespClient {
  private buf = Buffer.alloc(0);
  private readonly replies: Wire[] = [];
  private waiting: Array<() => void> = [];
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      let pos = 0;
      for (;;) {
        const r = decode(this.buf, pos);
        if (r === null) break;
        this.replies.push(r.value);
        pos = r.end;
      }
      this.buf = this.buf.subarray(pos);
      this.wake();
    });
    socket.on('error', () => {});
    this.closedPromise = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static connect(port: number): Promise<RespClient> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RespClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const fn of w) fn();
  }

  /** Writes raw bytes (or a command encoded as a multibulk). */
  send(data: Buffer | string | string[]): void {
    this.socket.write(Array.isArray(data) ? encodeCommand(data) : data);
  }

  /** The next reply; rejects if the connection closes first. */
  async read(): Promise<Wire> {
    while (this.replies.length === 0) {
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    return this.replies.shift()!;
  }

  async call(...argv: string[]): Promise<Wire> {
    this.send(argv);
    return this.read();
  }

  /** Replies received and not yet read. */
  get queued(): number {
    return this.replies.length;
  }

  close(): void {
    this.socket.destroy();
  }
}

export const simple = (v: string): Wire => ({ t: 'simple', v });
export const error = (v: string): Wire => ({ t: 'error', v });
export const bulk = (v: string | null): Wire => ({ t: 'bulk', v });
export const int = (v: number): Wire => ({ t: 'int', v: BigInt(v) });
export const array = (v: Wire[] | null): Wire => ({ t: 'array', v });

// A raw RESP client for server tests: sends bytes as given and reads replies (RESP2 and RESP3)
// through the tests' reply parser, as tagged values, so tests can assert the exact wire types.
import * as net from 'node:net';
import { encodeCommand } from '../../src/resp/encoder.js';
import { type Frame, ReplyParser } from '../support/reply-parser.js';

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

/** The tagged value of a reply's frame (the wire type kept: `$-1` is a null bulk, `_` a null). */
export function wireOf(frame: Frame): Wire {
  const { raw } = frame;
  const headerEnd = raw.indexOf('\r\n');
  const line = raw.toString('latin1', 1, headerEnd);
  const payload = (): string => {
    if (line === '?') throw new Error('streamed strings are not expected from a server');
    return raw.toString('utf8', headerEnd + 2, raw.length - 2);
  };
  const items = (): Wire[] => frame.children!.map(wireOf);
  switch (frame.type) {
    case '+': return { t: 'simple', v: line };
    case '-': return { t: 'error', v: line };
    case '!': return { t: 'error', v: payload() };
    case ':':
    case '(':
      return { t: 'int', v: BigInt(line) };
    case '_': return { t: 'null' };
    case ',': return { t: 'double', v: line };
    case '#': return { t: 'bool', v: line === 't' };
    case '$': return { t: 'bulk', v: line === '-1' ? null : payload() };
    case '=': return { t: 'verbatim', v: payload() };
    case '*': return { t: 'array', v: line === '-1' ? null : items() };
    case '~': return { t: 'set', v: items() };
    case '>': return { t: 'push', v: items() };
    case '%': {
      const flat = items();
      const pairs: Array<[Wire, Wire]> = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
      return { t: 'map', v: pairs };
    }
    default:
      throw new Error(`unexpected reply type ${JSON.stringify(frame.type)} in ${JSON.stringify(raw.toString('latin1', 0, 40))}`);
  }
}

/** A connection that queues decoded replies and reports when the server closes it. */
export class RespClient {
  private readonly parser = new ReplyParser({ frames: true });
  private readonly replies: Wire[] = [];
  private waiting: Array<() => void> = [];
  closed = false;
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.parser.push(chunk);
      for (let r = this.parser.next(); r !== undefined; r = this.parser.next()) this.replies.push(wireOf(r.frame!));
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

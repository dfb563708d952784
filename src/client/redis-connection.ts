// Connection adapter over ioredis, for Redis, Valkey and sluice server. ioredis reconnects by
// itself; we give it an exponential backoff with jitter, keep commands queued while it is down
// (a worker should wait out a restart rather than fail), and report each re-established link
// so the worker can re-read its own pending entries.
import { Command, type Pipeline, Redis } from 'ioredis';
import { encodeCommands } from '../resp/encoder.js';
import type { Arg, BlockingConnection, CloseConnectionOptions, Value } from './connection.js';
import { defaultRedisOptions } from './ioredis-defaults.js';
import { bindLink, execMulti, IoredisLink, ioredisName, toWire } from './ioredis-link.js';
import type { IoredisClient, RedisClientOptions } from './ioredis-types.js';

/**
 * A Connection to one Redis, Valkey or sluice server, over ioredis. `connect(url)` returns one;
 * construct it yourself only to wrap an ioredis client you configured (with `{ protocol: 2 }`)
 * and want close() to quit, or use `fromUrl` for the same as connect(url).
 */
export class RedisConnection implements BlockingConnection {
  // TypeScript-private rather than #private: a wrapper made with Object.create(conn) or a Proxy
  // (to intercept calls) runs these methods with itself as `this`, which has no #fields. The
  // declarations show the names only, without their types.
  private readonly link: IoredisLink<Redis>;
  /** The connection this one was duplicated from: interrupt() sends CLIENT UNBLOCK on it. */
  private parent: RedisConnection | null = null;
  /** This link's CLIENT ID, read at every (re)connect, for interrupt(). */
  private clientId: number | null = null;

  /** Wraps `client`; close() quits it unless `ownsClient` is false (as connect(client) does). */
  constructor(client: IoredisClient, ownsClient = true) {
    const redis = client as Redis;
    const protocol = (redis.options as { protocol?: number }).protocol ?? 3;
    if (protocol !== 2) throw new TypeError('sluice needs RESP2 reply shapes: create the ioredis client with { protocol: 2 }');
    this.link = new IoredisLink(redis, ownsClient);
    bindLink(this, this.link);
  }

  /** A new ioredis client for `url` (`redis://` or `rediss://`), reconnecting with backoff. */
  static fromUrl(url: string, options: RedisClientOptions = {}): RedisConnection {
    return new RedisConnection(new Redis(url, { ...defaultRedisOptions, ...options }), true);
  }

  call(...args: Arg[]): Promise<Value> {
    // A long command (a batch of adds: a thousand arguments) is cheaper encoded here in one
    // buffer (batch, below) than converted and joined by ioredis argument by argument; not one
    // whose arguments ioredis reads back (a SUBSCRIBE to many channels), which keeps its path.
    if (args.length > LONG_COMMAND && !READS_ARGS.has(String(args[0]).toLowerCase())) {
      return this.pipeline([args]).then(([reply]) => (reply instanceof Error ? Promise.reject(reply) : reply!));
    }
    return this.link.call(args);
  }

  async pipeline(commands: Arg[][]): Promise<Array<Value | Error>> {
    if (commands.length === 0) return [];
    const results = await this.batch(this.link.client.pipeline() as Pipeline, commands).exec();
    return (results ?? []).map(([err, value]) => (err ?? (value as Value)));
  }

  multi(commands: Arg[][]): Promise<Value[]> {
    return execMulti(() => this.batch(this.link.client.multi() as Pipeline, commands).exec());
  }

  /**
   * Queues commands on an ioredis pipeline (or MULTI), their bytes encoded here in one buffer:
   * ioredis would build each pipeline as one string of thousands of short pieces, which V8
   * flattens before writing at tens of ns per byte (a broker's job batch is a few KB per job).
   * The commands are otherwise ioredis's own (name, arguments, reply decoding, resending after
   * a reconnect); with a keyPrefix, which rewrites the keys, ioredis encodes them itself.
   */
  private batch(pipeline: Pipeline, commands: Arg[][]): Pipeline {
    if (this.link.client.options.keyPrefix) {
      for (const [name, ...args] of commands) pipeline.call(ioredisName(name!), ...args.map(toWire));
      return pipeline;
    }
    const bytes = encodeCommands(commands);
    for (let i = 0; i < commands.length; i++) {
      const name = ioredisName(commands[i]![0]!);
      const args = READS_ARGS.has(name.toLowerCase()) ? commands[i]!.slice(1).map(toWire) : [];
      pipeline.sendCommand(new EncodedCommand(name, args, bytes[i]!));
    }
    return pipeline;
  }

  async duplicate(): Promise<BlockingConnection> {
    const copy = new RedisConnection(this.link.client.duplicate(), true);
    // A lazyConnect client's copy is lazy too: without an offline queue (the CLI's) its first
    // command would fail instead of connecting, so connect it here.
    if (copy.link.client.status === 'wait') await copy.link.client.connect();
    copy.parent = this;
    const readId = (): void => void copy.call('CLIENT', 'ID').then((id) => (copy.clientId = Number(id)), () => {});
    readId();
    copy.onReconnect(readId);
    return copy;
  }

  async interrupt(): Promise<void> {
    // Closing the socket instead could lose a reply already on its way.
    if (this.parent === null || this.clientId === null) return;
    // While either link is down nothing is blocked under that id (ioredis sends the read again
    // after reconnecting, and it ends at its BLOCK timeout); an UNBLOCK queued until then would
    // name a client of the old server process, maybe someone else's after a restart.
    if (this.link.client.status !== 'ready' || this.parent.link.client.status !== 'ready') return;
    await this.parent.call('CLIENT', 'UNBLOCK', this.clientId).catch(() => {});
  }

  onReconnect(listener: () => void): () => void {
    return this.link.onReconnect(listener);
  }

  close(options?: CloseConnectionOptions): Promise<void> {
    return this.link.close(options);
  }
}

/** Arguments beyond which call() encodes the command itself. */
const LONG_COMMAND = 64;

/**
 * Commands whose arguments ioredis reads back after sending (the db to reselect after a
 * reconnect, subscriber mode, the connection's name). Others go with none: their bytes carry
 * them, and ioredis copies and converts what it is given (a tenth of a broker batch's client
 * time) only to decorate errors (err.command.args).
 */
const READS_ARGS = new Set(['select', 'subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe', 'client', 'hello', 'auth', 'monitor', 'quit', 'reset']);

/** An ioredis command whose wire bytes were encoded beforehand (RedisConnection.batch). */
class EncodedCommand extends Command {
  constructor(
    name: string,
    args: Array<string | Buffer | number>,
    private readonly bytes: Buffer,
  ) {
    // The options `redis.call` gives its commands: replies decoded as UTF-8.
    super(name, args, { replyEncoding: 'utf8' });
  }

  override toWritable(): Buffer {
    return this.bytes;
  }
}

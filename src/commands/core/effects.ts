// Where the effects of write commands go. A command's effects (its deterministic forms: XADD
// with the id it produced, XCLAIM for each delivery) are appended once, as one atomic batch,
// and every sink receives that batch: the AOF (persist/aof.ts), and, when replication is on,
// the replication backlog and the replicas (src/replication/). As Redis's
// propagateNow() hands a command to feedAppendOnlyFile() and replicationFeedSlaves().
import { Buffer } from 'node:buffer';
import type { Encoder } from '../../resp/encoder.js';
import { StreamIdReply } from '../../resp/reply.js';
import type { RequestArgs } from '../../resp/request-args.js';

/**
 * An argument of a logged command. A stream id may stay a StreamIdReply (XADD's generated id):
 * the log encodes it from its numbers, as replies do, without a string per command.
 */
export type PropagatedArg = Buffer | string | StreamIdReply;

/** One command to log, in the database it applies to. */
export interface Propagated {
  db: number;
  argv: PropagatedArg[];
  /**
   * Sent to replicas but not logged: PUBLISH, which Redis propagates to replicas only
   * (forceCommandPropagation(c, PROPAGATE_REPL)), so their subscribers (Sentinel's hello
   * channel among them) hear what the primary's do, while a restart replays no messages.
   */
  replicationOnly?: true;
}

/**
 * A command logged as the bytes it arrived in, when those are RESP's own encoding of its
 * arguments (RequestArgs.wire()), one argument maybe replaced by a stream id (XADD's `*` by
 * the id it made): a sink copies [start, cut), the id, then [resume, end) after the `*<count>`
 * header, instead of encoding every argument again (a third of what feeding a replica cost a
 * pipelined XADD or SET). The arena is append-only, so the offsets stay valid. argv is built
 * only for a reader that wants the arguments (an AOF rewrite in progress).
 */
export class WireCommand implements Propagated {
  private decoded: PropagatedArg[] | null = null;

  private constructor(
    readonly db: number,
    readonly count: number,
    readonly buf: Buffer,
    readonly start: number,
    readonly cut: number,
    readonly resume: number,
    readonly end: number,
    readonly id: StreamIdReply | null,
  ) {}

  /** The request `args` as logged, argument `at` replaced by `id` (at -1: as it is). */
  static of(db: number, args: RequestArgs, at = -1, id: StreamIdReply | null = null): Propagated {
    const wire = args.wire();
    if (wire === null) return { db, argv: at < 0 || id === null ? args.toArgv() : args.argvWith(at, id) };
    const end = args.argEnd(args.length - 1) + 2;
    if (at < 0 || id === null) return new WireCommand(db, args.length, wire.buf, wire.start, end, end, end, null);
    const cut = at === 0 ? wire.start : args.argEnd(at - 1) + 2;
    return new WireCommand(db, args.length, wire.buf, wire.start, cut, args.argEnd(at) + 2, end, id);
  }

  get argv(): PropagatedArg[] {
    if (this.decoded !== null) return this.decoded;
    const { buf, id } = this;
    const out: PropagatedArg[] = [];
    let p = this.start;
    for (let i = 0; i < this.count; i++) {
      if (p === this.cut && id !== null) {
        out.push(id);
        p = this.resume;
        continue;
      }
      let len = 0;
      for (p++; p < this.end && buf[p] !== 13; p++) len = len * 10 + (buf[p]! - 48);
      p += 2;
      out.push(buf.subarray(p, p + len));
      p += len + 2;
    }
    return (this.decoded = out);
  }

  /** Writes the command into `resp` as its RESP array. */
  encodeInto(resp: Encoder): void {
    resp.arrayHeader(this.count);
    resp.rawRange(this.buf, this.start, this.cut);
    if (this.id !== null) {
      resp.streamId(this.id.ms, this.id.seq);
      resp.rawRange(this.buf, this.resume, this.end);
    }
  }
}

/** The part of a batch an append-only log keeps: all of it, but for replication-only items. */
export function loggedPart(batch: readonly Propagated[]): readonly Propagated[] {
  for (let i = 0; i < batch.length; i++) {
    if (batch[i]!.replicationOnly === true) return batch.filter((p) => p.replicationOnly !== true);
  }
  return batch;
}

/** A logged argument's bytes (what the log holds for it). */
export function propagatedBytes(arg: PropagatedArg): Buffer {
  if (arg instanceof StreamIdReply) return Buffer.from(arg.toString(), 'latin1');
  return typeof arg === 'string' ? Buffer.from(arg, 'utf8') : arg;
}

/** A receiver of command effects. A batch must be read, never kept or changed: all sinks share it. */
export interface EffectSink {
  append(batch: readonly Propagated[]): void;
  /**
   * False while the sink ignores what it is given (a replica's backlog: its stream is its
   * primary's, proxied): with no sink listening, handlers build no propagated forms.
   */
  readonly listening?: boolean;
  /** Called when a held run of batches ends (see EffectFanout.hold). */
  flush?(): void;
}

export class EffectFanout {
  private sinks: readonly EffectSink[] = [];
  /**
   * True while the commands of one socket read run (Instance.beginBatch): a sink may then keep
   * what it was given and write it out once at flush(), as the backlog does for its replicas.
   */
  held = false;

  /** True when a sink listens: handlers then build their propagated forms (Context.propagating). */
  get active(): boolean {
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) if (sinks[i]!.listening !== false) return true;
    return false;
  }

  /** Starts a run of batches that sinks may write out together (see held). */
  hold(): void {
    this.held = true;
  }

  /** Ends the run: every sink writes out what it kept. */
  release(): void {
    this.held = false;
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) sinks[i]!.flush?.();
  }

  add(sink: EffectSink): void {
    if (!this.sinks.includes(sink)) this.sinks = [...this.sinks, sink];
  }

  remove(sink: EffectSink): void {
    this.sinks = this.sinks.filter((s) => s !== sink);
  }

  /** Hands one batch (never empty) to every sink, in the order they were added. */
  append(batch: readonly Propagated[]): void {
    const sinks = this.sinks;
    for (let i = 0; i < sinks.length; i++) sinks[i]!.append(batch);
  }
}

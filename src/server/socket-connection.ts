// One client connection: parses requests, runs them in order through the Instance, and writes
// the replies of everything one event-loop turn produced with a single socket.write.
import { Buffer } from 'node:buffer';
import { readSync, writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import { Encoder, type Protocol } from '../resp/encoder.js';
import { type ParserLimits, ProtocolError, RequestParser } from '../resp/parser.js';
import { ErrorReply, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import type { RequestArgs } from '../resp/request-args.js';
import { audibleReply, commandDone } from '../commands/client-reply.js';
import { diskError, isWriteCommand } from '../persist/refused-write.js';
import { DurableBatch } from './durable-batch.js';
import { buffersDropped } from './memory-release.js';
import { OutputLimit, UNAUTHENTICATED_OUTPUT_LIMIT } from './output-limit.js';
import { startReading } from './socket-reads.js';
import { flushAtTurnEnd } from './turn-flush.js';

/** serveWhileBusy's reads (copied into the parser before it returns). */
const busyReads = Buffer.allocUnsafeSlow(16 * 1024);

/** Pause reading from a client whose unsent replies exceed this (its socket buffer is full). */
const OUTPUT_HIGH_WATER = 1 << 20;
/** Writes at least this big are counted for memory-release.ts once sent or dropped. */
const BIG_WRITE = 1 << 20;

/**
 * Requests a connection runs per event-loop turn, in bytes, before the other connections get
 * theirs: Redis reads 16 KiB per client and turn (PROTO_IOBUF_LEN). A read brings up to 64 KiB;
 * without this, clients pipelining without pause (and never reading) made everyone else wait
 * for 64 KiB of each of their requests per turn.
 */
const TURN_INPUT_BUDGET = 16 * 1024;

/** Formats an address as Redis does: "ip:port", IPv6 in brackets, IPv4-mapped shown as IPv4. */
export function formatAddr(ip: string | undefined, port: number | undefined): string {
  let host = ip ?? '';
  if (host.startsWith('::ffff:') && host.includes('.')) host = host.slice(7);
  return host.includes(':') ? `[${host}]:${port ?? 0}` : `${host}:${port ?? 0}`;
}

export class SocketConnection {
  readonly client: ClientState;
  private readonly parser: RequestParser;
  private readonly encoders: { 2?: Encoder; 3?: Encoder } = {};
  /** Replies encoded under an earlier protocol in this batch (HELLO switched it). */
  private readonly pendingChunks: Buffer[] = [];
  private encoder: Encoder | null = null;
  private pendingCount = 0;
  /** The batch's replies as values, kept while a persistence layer may refuse their bytes. */
  private readonly durable = new DurableBatch();
  /** The blocked command in progress is a write (its reply depends on the disk). */
  private blockedWrite = false;
  private readonly outputLimit: OutputLimit;
  /** Waiting for a blocking command or for the persistence barrier: do not run more commands. */
  private busy = false;
  /** Set while a pipeline waits for the client to read its replies (see run()). */
  private awaitingDrain = false;
  /** Not reading: the turn's input budget was spent and requests are left for the next turn. */
  private inputDeferred = false;
  /** Inside run(): replies pushed now go out with the batch, ahead of the current reply. */
  private running = false;
  /** Pushed replies waiting for the reply of the command being run (see deliver()). */
  private readonly afterReply: Reply[] = [];
  /** A blocked command's reply is awaited: what is pushed to follow it waits for it too. */
  private awaitingBlocked = false;
  /** No more commands are run: QUIT, a protocol error, or the connection is going away. */
  private stopped = false;
  private closed = false;
  /** A flush is queued for the end of this event-loop turn (see turn-flush.ts). */
  private flushQueued = false;
  private readonly onCloseHooks: Array<() => void> = [];
  /**
   * Bytes of big writes (BIG_WRITE) since memory-release.ts was last told: once sent (drain)
   * or dropped with the connection, they are garbage that an idle server never collects.
   */
  private bigWrites = 0;
  /** Reads arrive in the buffer all connections share (socket-reads.ts): copy what is kept. */
  private sharedReads = false;
  /** The request limits from the config (CONFIG SET applies to connected clients too, as in Redis). */
  private readonly requestLimits: () => Required<Pick<ParserLimits, 'maxBulkLen' | 'maxQueryBuffer'>>;
  // Bound once: a closure per read or flush is garbage on the unpipelined path.
  private readonly runNow = (): void => this.run();
  private readonly flushNow = (): void => this.flush();
  /** Runs requests left by the previous turn (its budget spent); it is the check phase now. */
  private readonly runDeferred = (): void => {
    if (this.closed || this.busy) return;
    this.inCheckPhase = true;
    try {
      this.guarded(this.runNow);
    } finally {
      this.inCheckPhase = false;
    }
  };
  /** From the poll phase, the next turn's check phase is two hops away (this turn's is next). */
  private readonly deferFromPoll = (): void => void setImmediate(this.runDeferred);
  private inCheckPhase = false;
  /**
   * Bytes run in this turn's check phase by a deferred run that then emptied the buffer: the
   * next turn's first read has only the rest of the budget, so no turn runs more than one.
   */
  private spentInCheck = 0;
  /** The bytes of the request being executed (part of qbuf while it runs, as in Redis). */
  private runningRequestBytes = 0;
  /** Registered in the instance's buffersHeld (see noteBuffers). */
  private holdingBuffers = false;
  /** The socket's descriptor, for reads while a script holds the event loop and writeNow (-1: not available). */
  private readonly fd: number;

  constructor(
    private readonly instance: Instance,
    private readonly socket: Socket,
  ) {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
    this.fd = fd;
    this.client = instance.newClient(
      'tcp',
      formatAddr(socket.remoteAddress, socket.remotePort),
      formatAddr(socket.localAddress, socket.localPort),
      fd,
    );
    this.client.kill = () => this.destroy();
    this.client.push = (reply, afterReply) => this.guarded(() => this.deliver(reply, afterReply === true));
    this.client.whenDrained = (fn) => {
      const check = (): void => {
        if (this.closed) return;
        if (this.socket.writableLength > 0) this.socket.once('drain', check);
        else if (this.pendingCount > 0 || this.busy) setImmediate(check); // written at the turn's end
        else fn();
      };
      setImmediate(check);
    };
    this.client.writeNow = (bytes) => this.writeNow(bytes);
    this.client.buffers = () => ({
      // While it runs, the command's own request is still in Redis's query buffer (qbuf=26 for
      // a CLIENT LIST), trimmed only after the commands of the read were processed.
      queryBuffered: this.parser.bufferedBytes + this.runningRequestBytes,
      queryFree: Math.max(0, this.parser.bufferCapacity - this.parser.bufferedBytes - this.runningRequestBytes),
      outputUnsent: this.outputBacklog(),
    });
    const config = instance.config;
    this.outputLimit = new OutputLimit(config, () => (this.client.isReplica ? 'slave' : this.client.subscriptions.active ? 'pubsub' : 'normal'));
    this.requestLimits = config.derived((c) => ({
      maxBulkLen: c.getNumber('proto-max-bulk-len'),
      maxQueryBuffer: c.getNumber('client-query-buffer-limit'),
    }));
    this.parser = new RequestParser(this.requestLimits());
    socket.setNoDelay(true);
    // The peer's FIN: replies to what it sent before are written now, before Node ends the
    // socket (a flush queued for the end of the turn would come too late).
    socket.prependListener('end', () => this.flushTurn());
    socket.on('error', () => this.destroy());
    socket.on('close', () => this.cleanup());
    socket.on('drain', () => {
      if (this.closed) return;
      this.releaseBigWrites();
      this.noteBuffers();
      if (!this.inputDeferred) socket.resume();
      if (this.awaitingDrain) {
        this.awaitingDrain = false;
        this.guarded(() => this.run());
      }
    });
    // Last: the first bytes may arrive as soon as reading starts.
    this.sharedReads = startReading(socket, (bytes) => this.onData(bytes));
  }

  /**
   * Called while a script runs past busy-reply-threshold, with the event loop held by it: reads
   * what the client sent straight from its socket (non-blocking) and answers it at once, as
   * Redis's processEventsWhileBlocked (most commands get BUSY; SCRIPT KILL, FUNCTION KILL, AUTH,
   * HELLO and the other allow_busy commands run), and writes the replies still unsent. The
   * script's own caller, a client waiting on a blocking command and one whose input or output is
   * held back are left for later.
   */
  serveWhileBusy(): void {
    if (this.closed || this.running) return;
    // Replies of the turn the script started in wait for its end otherwise (turn-flush.ts): a
    // client whose PING was answered just before would never see its PONG, nor send SCRIPT KILL.
    this.flushTurn();
    if (this.fd < 0 || this.stopped || this.busy || this.awaitingDrain || this.inputDeferred) return;
    let n: number;
    try {
      n = readSync(this.fd, busyReads, 0, busyReads.length, null);
    } catch {
      return; // EAGAIN: nothing arrived (or an error the event loop reports once the script is over)
    }
    if (n <= 0) return; // the peer's FIN: seen by the event loop afterwards
    this.onData(busyReads.subarray(0, n), true);
    this.flushTurn();
  }

  /** Gives the query buffer back while the connection is quiet (called every second). */
  releaseIdleInput(): void {
    this.parser.releaseIfIdle();
    this.noteBuffers();
  }

  /** Tells the instance whether this client's buffers count in used_memory now (quiet ones are not summed). */
  private noteBuffers(): void {
    const holding = !this.closed && (this.parser.bufferedBytes > 0 || this.socket.writableLength > 0);
    if (holding === this.holdingBuffers) return;
    this.holdingBuffers = holding;
    if (holding) this.instance.buffersHeld.holds(this.client);
    else this.instance.buffersHeld.released(this.client);
  }

  /** Called once the connection is gone, however it ended. */
  onClose(fn: () => void): void {
    this.onCloseHooks.push(fn);
  }

  /** Drops the connection at once (CLIENT KILL, timeout, shutdown). */
  destroy(): void {
    this.stopped = true;
    this.socket.destroy();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopped = true;
    const held = this.parser.bufferCapacity;
    this.parser.release();
    buffersDropped(held);
    this.releaseBigWrites();
    this.instance.removeClient(this.client);
    for (const fn of this.onCloseHooks) fn();
  }

  /** `shared`: the chunk is a buffer that is reused (copy what is kept). */
  private onData(chunk: Buffer, shared = this.sharedReads): void {
    if (this.stopped) return;
    this.instance.stats.netInputBytes += chunk.length;
    const limits = this.requestLimits();
    this.parser.maxBulkLen = limits.maxBulkLen;
    this.parser.maxQueryBuffer = limits.maxQueryBuffer;
    // As Redis, any input counts as interaction ('timeout'), even commands that are rejected.
    this.client.lastInteraction = Date.now();
    try {
      if (shared) this.parser.pushCopy(chunk);
      else this.parser.push(chunk);
    } catch (err) {
      this.protocolError(err);
      return;
    }
    if (!this.busy) this.guarded(this.runNow);
    this.noteBuffers();
  }

  /**
   * Runs server-side work for this connection. A failure here is a bug (a reply the encoder
   * cannot encode, say): the output may be half-written, so the connection is dropped, but the
   * process and the other clients carry on.
   */
  private guarded(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.instance.logger.error('sluice: internal error on a connection, closing it:', err);
      this.destroy();
    }
  }

  /**
   * An out-of-band reply (a Pub/Sub message, a MONITOR line). Published by this client itself it
   * joins the batch being built, before the command's own reply, as in Redis; otherwise it goes
   * out with this turn's writes (a pipeline of PUBLISHes is one write per subscriber, not one per
   * message).
   */
  private deliver(pushed: Reply, afterReply: boolean): void {
    const reply = audibleReply(this.client, pushed);
    if (this.closed || reply === undefined) return;
    if (afterReply && (this.running || this.awaitingBlocked)) {
      this.afterReply.push(reply);
      return;
    }
    this.append(reply);
    if (!this.running) this.queueFlush();
  }

  /**
   * ClientState.writeNow: a write(2) of the socket's descriptor (non-blocking: what the kernel
   * does not take now is not written), only when nothing of this connection waits to be sent
   * (no reply of this turn, nothing queued in the socket, no batch held for the disk or a
   * blocked command), so its bytes keep their order. An error (EAGAIN: the kernel's buffer is
   * full; a peer gone) writes nothing here: the socket's own writes see it.
   */
  private writeNow(bytes: Buffer): number {
    if (this.fd < 0 || this.closed || this.busy || this.pendingCount > 0 || this.socket.writableLength > 0) return 0;
    let n: number;
    try {
      n = writeSync(this.fd, bytes);
    } catch {
      return 0;
    }
    this.instance.stats.netOutputBytes += n;
    return n;
  }

  /** Appends a command's reply, then what was pushed to follow it. */
  private appendReply(full: Reply, logged: boolean): void {
    const reply = audibleReply(this.client, full);
    commandDone(this.client);
    if (reply !== undefined) this.append(reply, logged);
    if (this.afterReply.length === 0) return;
    for (const r of this.afterReply.splice(0)) this.append(r);
  }

  /** Runs every complete request buffered, in order, then writes their replies. */
  private run(): void {
    this.running = true;
    const batch = this.instance.beginBatch();
    try {
      this.runBuffered();
    } finally {
      this.running = false;
      if (batch) this.instance.endBatch();
    }
  }

  private runBuffered(): void {
    // Past this many bytes still buffered, the turn's budget is spent.
    const buffered = this.parser.bufferedBytes;
    const budgetEnd = buffered - TURN_INPUT_BUDGET + this.spentInCheck;
    this.spentInCheck = 0;
    while (!this.stopped && !this.busy && !this.awaitingDrain) {
      let args: RequestArgs | null;
      try {
        // Before AUTH, Redis caps request sizes (10 arguments, 16 KiB bulks).
        this.parser.authRequired = !this.client.authenticated;
        const before = this.parser.bufferedBytes;
        args = this.parser.nextArgs();
        this.runningRequestBytes = before - this.parser.bufferedBytes;
      } catch (err) {
        this.protocolError(err);
        return;
      }
      if (args === null) {
        if (this.inputDeferred) {
          this.inputDeferred = false;
          if (this.inCheckPhase) this.spentInCheck = buffered - this.parser.bufferedBytes;
          if (!this.pastStall(this.socket.writableLength)) this.socket.resume();
        }
        break;
      }
      let reply: Reply | Promise<Reply>;
      const dirty = this.instance.dirty;
      try {
        reply = this.instance.executeArgs(this.client, args);
        this.runningRequestBytes = 0;
      } catch (err) {
        this.runningRequestBytes = 0;
        // Instance.call already turns handler exceptions into replies; this is a last resort.
        this.instance.logger.error('sluice: internal error while dispatching a command:', err);
        reply = new ErrorReply(Errors.internal);
      }
      if (reply instanceof Promise) {
        // A blocked command: send what came before it, and resume after it answers.
        this.busy = true;
        this.awaitingBlocked = true;
        this.blockedWrite = this.instance.persistence !== null && isWriteCommand(this.instance, args.toArgv());
        this.flush();
        reply.then(
          (r) => this.guarded(() => this.resume(r)),
          () => this.guarded(() => this.resume(new ErrorReply(Errors.internal))),
        );
        return;
      }
      this.appendReply(reply, this.instance.dirty !== dirty);
      if (this.client.closeAfterReply) this.stopped = true;
      if (!this.client.authenticated && this.outputBacklog() > UNAUTHENTICATED_OUTPUT_LIMIT) {
        // Pipelining without authenticating and without reading: closed, as Redis does, before
        // its replies can hold memory (or its commands the event loop).
        this.instance.logger.error(`sluice: Client id=${this.client.id} addr=${this.client.addr} closed for overcoming of output buffer limits (unauthenticated).`);
        this.destroy();
        return;
      }
      if (this.pastStall(this.outputBacklog())) {
        // A pipeline whose replies pile up (big GETs, XRANGEs) is run no further until the
        // client has read them: what sits unsent stays bounded however many requests came in.
        this.flush();
        if (!this.busy && this.pastStall(this.socket.writableLength)) {
          this.awaitingDrain = true;
          return;
        }
      }
      const left = this.parser.bufferedBytes;
      if (left <= budgetEnd && left > 0) {
        // The others' turn: the rest runs in the next turn, and nothing more is read until then.
        this.inputDeferred = true;
        this.socket.pause();
        setImmediate(this.inCheckPhase ? this.runDeferred : this.deferFromPoll);
        break;
      }
    }
    this.queueFlush();
  }

  /** Asks for one flush at the end of this event-loop turn (turn-flush.ts). */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    flushAtTurnEnd(this);
  }

  /** Writes what this turn's commands replied (called once the turn's reads are done). */
  flushTurn(): void {
    if (!this.flushQueued) return;
    this.flushQueued = false;
    this.guarded(this.flushNow);
  }

  /**
   * `unsent` bytes of output are past where a pipeline waits: OUTPUT_HIGH_WATER, or above any
   * client-output-buffer-limit set. Most calls stop at the first comparison (the limit is
   * looked up only for output that piled up).
   */
  private pastStall(unsent: number): boolean {
    if (unsent <= OUTPUT_HIGH_WATER) return false;
    const limit = this.outputLimit.highest;
    return limit <= 0 || unsent > limit + 1;
  }

  /** Reply bytes encoded or queued on the socket and not yet sent. */
  private outputBacklog(): number {
    let pending = this.encoder?.pending ?? 0;
    for (const chunk of this.pendingChunks) pending += chunk.length;
    return pending + this.socket.writableLength;
  }

  private resume(reply: Reply): void {
    this.busy = false;
    this.awaitingBlocked = false;
    if (this.closed) return;
    this.appendReply(reply, this.blockedWrite);
    if (this.client.closeAfterReply) this.stopped = true;
    this.run();
  }

  private append(reply: Reply, logged = false): void {
    const protocol: Protocol = this.client.resp;
    if (this.instance.persistence !== null) this.durable.add(reply, protocol, logged);
    let encoder = this.encoders[protocol];
    if (encoder === undefined) encoder = this.encoders[protocol] = new Encoder(protocol);
    if (this.encoder !== null && this.encoder !== encoder) this.pendingChunks.push(this.encoder.take());
    this.encoder = encoder;
    encoder.write(reply);
    this.pendingCount++;
  }

  /** Writes the batch, after the persistence barrier when one is pending (appendfsync always). */
  private flush(): void {
    if (this.pendingCount === 0) {
      if (this.stopped && !this.busy) this.end();
      return;
    }
    this.pendingCount = 0;
    let out: Buffer;
    if (this.pendingChunks.length === 0) {
      out = this.encoder!.take();
    } else {
      if (this.encoder !== null) this.pendingChunks.push(this.encoder.take());
      out = Buffer.concat(this.pendingChunks);
      this.pendingChunks.length = 0;
    }
    const barrier = this.instance.persistence?.barrier() ?? null;
    if (barrier === null) {
      this.durable.clear();
      this.write(out);
      if (this.stopped && !this.busy) this.end();
      return;
    }
    const batch = this.durable.take();
    const wasBusy = this.busy;
    this.busy = true;
    barrier.then(
      () => this.guarded(() => this.afterBarrier(out, wasBusy)),
      // The disk refused the bytes: the writes of this batch are answered with its error.
      (err: unknown) =>
        this.guarded(() => this.afterBarrier(batch.hasLogged ? batch.encodeFailed(diskError(err)) : out, wasBusy)),
    );
  }

  private afterBarrier(out: Buffer, stillBlocked: boolean): void {
    if (this.closed) return;
    this.write(out);
    // A blocked command keeps the connection busy until it answers (see run()).
    if (stillBlocked) return;
    this.busy = false;
    if (this.stopped) this.end();
    else this.run();
  }

  private releaseBigWrites(): void {
    if (this.bigWrites === 0) return;
    buffersDropped(this.bigWrites);
    this.bigWrites = 0;
  }

  private write(out: Buffer): void {
    if (this.closed) return;
    this.instance.stats.netOutputBytes += out.length;
    if (out.length >= BIG_WRITE) this.bigWrites += out.length;
    this.socket.write(out);
    this.noteBuffers();
    if (this.checkOutputLimit()) return;
    // Backpressure: stop reading until the client has taken its replies.
    if (this.pastStall(this.socket.writableLength)) this.socket.pause();
  }

  /**
   * Disconnects the client when its unsent replies are past client-output-buffer-limit (also
   * called every second, for the soft limit's duration). True when it was disconnected.
   */
  checkOutputLimit(): boolean {
    if (this.closed || !this.outputLimit.exceeded(this.socket.writableLength)) return false;
    this.instance.logger.error(`sluice: Client id=${this.client.id} addr=${this.client.addr} closed for overcoming of output buffer limits.`);
    this.destroy();
    return true;
  }

  /**
   * Closes after the replies written so far: once the kernel has them, the socket is closed
   * whole, as Redis closes the fd (CLIENT_CLOSE_AFTER_REPLY). Ending only our side would leave
   * a client that keeps writing (a protocol desync) writing for ever without an error.
   */
  private end(): void {
    if (this.closed) return;
    this.socket.end(() => this.socket.destroy());
    // Redis frees a client once its last reply is written (QUIT): it is gone for the others now
    // (CLIENT TRACKING's redirect, CLIENT LIST), not only once the peer closes its side.
    this.instance.removeClient(this.client);
  }

  /** Replies with the parser's error (Redis's text) and closes this connection only. */
  private protocolError(err: unknown): void {
    if (!(err instanceof ProtocolError)) this.instance.logger.error('sluice: request parser failed:', err);
    const message = err instanceof Error ? err.message : String(err);
    // Past the query buffer limit Redis closes silently. While a command is blocked its reply
    // must come first, so such a client is simply dropped too.
    if (this.busy || (err instanceof ProtocolError && err.silent)) {
      this.destroy();
      return;
    }
    this.stopped = true;
    if (err instanceof ProtocolError) {
      // The parser's exact bytes: the message may quote non-UTF-8 input as Redis does.
      if (this.encoder !== null) this.pendingChunks.push(this.encoder.take());
      this.pendingChunks.push(err.reply);
      if (this.instance.persistence !== null) this.durable.addRaw(err.reply);
      this.pendingCount++;
    } else {
      this.append(new ErrorReply(Errors.protocol(message)));
    }
    this.flush();
  }
}


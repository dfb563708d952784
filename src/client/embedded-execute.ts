// How an embedded session runs one command: its arguments as argv, the reply once the disk has
// the command's effects (MISCONF when the disk refused a write), and that reply as the plain
// value `call` resolves to. Shared by the public EmbeddedSession and the internal callRaw.
import { Buffer } from 'node:buffer';
import type { ClientState } from '../commands/client-state.js';
import type { Instance } from '../commands/core/instance.js';
import { diskError, isWriteCommand } from '../persist/refused-write.js';
import { formatDouble } from '../resp/encoder.js';
import {
  BooleanReply,
  DirectReply,
  DoubleReply,
  ErrorReply,
  MapReply,
  NULL_ARRAY,
  PushReply,
  Replies,
  type Reply,
  SetReply,
  SimpleString,
  StreamIdReply,
  VerbatimReply,
} from '../resp/reply.js';
import { releaseRequestArgs, requestArgsOf } from './arg-arena.js';
import { type Arg, ReplyError, type Value } from './connection.js';

/**
 * Short arguments (command names, field names, '*', small numbers) recur on nearly every call:
 * their bytes are made once. Safe because commands never write into their arguments and copy
 * what they keep (a server reuses its read buffer the same way).
 */
const SHORT_ARG = 24;
const SHORT_ARGS_KEPT = 4096;
const shortArgs = new Map<string, Buffer>();

// Kept bytes live in slabs of their own: a Buffer.from() slice would pin a whole 8 KiB slab of
// Node's shared pool per kept argument, most of it other calls' garbage (~1.7 KB per key in
// bench/collection-memory.ts before).
const SLAB_SIZE = 16 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
let slabUsed = 0;

function keptBytes(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  if (slabUsed + length > SLAB_SIZE) {
    slab = Buffer.allocUnsafeSlow(SLAB_SIZE);
    slabUsed = 0;
  }
  const bytes = slab.subarray(slabUsed, slabUsed + length);
  bytes.write(text, 'utf8');
  slabUsed += length;
  return bytes;
}

function argBytes(text: string): Buffer {
  if (text.length > SHORT_ARG) return Buffer.from(text, 'utf8');
  let bytes = shortArgs.get(text);
  if (bytes === undefined) {
    if (shortArgs.size >= SHORT_ARGS_KEPT) return Buffer.from(text, 'utf8');
    bytes = keptBytes(text);
    shortArgs.set(text, bytes);
  }
  return bytes;
}

export function toArgv(args: Arg[]): Buffer[] {
  const argv = new Array<Buffer>(args.length);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    argv[i] = Buffer.isBuffer(a) ? a : argBytes(typeof a === 'string' ? a : String(a));
  }
  return argv;
}

/** Converts a reply as ioredis does under RESP2: maps become flat arrays, errors throw. */
export function toValue(reply: Reply): Value {
  if (typeof reply === 'string' || typeof reply === 'number' || typeof reply === 'bigint') return reply;
  if (reply === null || reply === NULL_ARRAY) return null;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map(toValue);
  if (reply instanceof SimpleString) return reply.value;
  if (reply instanceof StreamIdReply) return reply.toString();
  if (reply instanceof DirectReply) return toValue(reply.toReply());
  if (reply instanceof ErrorReply) throw new ReplyError(reply.bytes ? Buffer.from(reply.message, 'latin1').toString('utf8') : reply.message);
  if (reply instanceof MapReply) return reply.entries.flatMap(([k, v]) => [toValue(k), toValue(v)]);
  if (reply instanceof SetReply || reply instanceof PushReply || reply instanceof Replies) return reply.items.map(toValue);
  // RESP2 sends a double as the bulk string Redis formats (%.17g, inf, -inf).
  if (reply instanceof DoubleReply) return reply.text ?? formatDouble(reply.value);
  if (reply instanceof BooleanReply) return reply.value ? 1 : 0;
  if (reply instanceof VerbatimReply) return reply.text;
  throw new TypeError('unknown reply');
}

/** Runs a command for `client`, its arguments read in place when they are short enough. */
function execute(instance: Instance, client: ClientState, args: Arg[]): Reply | Promise<Reply> {
  const request = requestArgsOf(args);
  if (request === undefined) return instance.execute(client, toArgv(args));
  try {
    return instance.executeArgs(client, request);
  } finally {
    releaseRequestArgs(request);
  }
}

/**
 * Runs a command for `client` and resolves to the value `call` gives. Without persistence a
 * command answered at once costs one settled promise and no async frames: with many calls in
 * flight, those frames were what the young generation copied and most of the time went to GC.
 */
export function executeValue(instance: Instance, client: ClientState, args: Arg[]): Promise<Value> {
  if (instance.persistence !== null) return executeRaw(instance, client, args).then(toValue);
  const pending = execute(instance, client, args);
  if (pending instanceof Promise) return pending.then(toValue);
  try {
    return Promise.resolve(toValue(pending));
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/**
 * MULTI, the commands and EXEC for `client`, resolving to EXEC's values; the first error reply
 * (a command refused while queueing, EXECABORT, a command that failed inside) rejects. Without
 * persistence, a command answered at once is run without a promise of its own: the broker
 * writes in transactions of hundreds of commands, and a microtask per command was most of
 * their cost.
 */
export async function executeTransaction(instance: Instance, client: ClientState, commands: Arg[][]): Promise<Value[] | null> {
  let reply: Reply = null;
  for (const args of [['MULTI'], ...commands, ['EXEC']]) {
    if (instance.persistence !== null) reply = await executeRaw(instance, client, args);
    else {
      const pending = execute(instance, client, args);
      reply = pending instanceof Promise ? await pending : pending;
    }
    if (reply instanceof ErrorReply) toValue(reply); // throws it as ReplyError
  }
  return toValue(reply) as Value[] | null;
}

/** Runs a command for `client` and resolves to its raw reply (errors are ErrorReply values, not thrown). */
export async function executeRaw(instance: Instance, client: ClientState, args: Arg[]): Promise<Reply> {
  const dirty = instance.dirty;
  const pending = execute(instance, client, args);
  // Whether the reply depends on the disk: the command changed data (a blocked write
  // changes it later, when served).
  const logged = pending instanceof Promise ? instance.persistence !== null && isWriteCommand(instance, toArgv(args)) : instance.dirty !== dirty;
  const reply = await pending;
  const barrier = instance.persistence?.barrier(true);
  if (barrier) {
    try {
      await barrier;
    } catch (err) {
      // The disk refused the bytes: a write is answered with MISCONF (see persist/README.md).
      if (logged) return new ErrorReply(diskError(err));
    }
  }
  return reply;
}

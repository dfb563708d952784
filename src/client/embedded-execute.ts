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
import { type Arg, ReplyError, type Value } from './connection.js';

export function toArgv(args: Arg[]): Buffer[] {
  return args.map((a) => (Buffer.isBuffer(a) ? a : Buffer.from(String(a), 'utf8')));
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

/** Runs a command for `client` and resolves to its raw reply (errors are ErrorReply values, not thrown). */
export async function executeRaw(instance: Instance, client: ClientState, args: Arg[]): Promise<Reply> {
  const argv = toArgv(args);
  const dirty = instance.dirty;
  const pending = instance.execute(client, argv);
  // Whether the reply depends on the disk: the command changed data (a blocked write
  // changes it later, when served).
  const logged = pending instanceof Promise ? instance.persistence !== null && isWriteCommand(instance, argv) : instance.dirty !== dirty;
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

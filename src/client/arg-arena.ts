// An embedded call's arguments written into an append-only arena and read in place, as a server
// connection's requests are (resp/request-args.ts): numbers as their digits, texts as their
// UTF-8 bytes, without a Buffer per argument. The arena is never written over (a full one is left
// to the garbage collector and a new one started), so what a command keeps of its arguments
// (a MULTI queue's offsets, an AOF batch's bytes, a blocked command's Buffers) stays valid.
import { Buffer } from 'node:buffer';
import { Encoder } from '../resp/encoder.js';
import { RequestArgs } from '../resp/request-args.js';
import type { Arg } from './connection.js';

const ARENA_SIZE = 64 * 1024;
/** Longer texts and Buffers go the argv way (toArgv): copying them would cost more than a view. */
const LONGEST_COPIED = 1024;

let arena = Buffer.allocUnsafeSlow(ARENA_SIZE);
let used = 0;

/** One RequestArgs for every call; a call made while one runs (a callback inside a command) gets its own. */
const shared = new RequestArgs();
let sharedInUse = false;

/** Room for `n` bytes at `used` (a new arena when the current one is full). */
function room(n: number): void {
  if (used + n <= arena.length) return;
  arena = Buffer.allocUnsafeSlow(Math.max(ARENA_SIZE, n));
  used = 0;
}

/** Writes a safe integer's digits at `used` (room made). */
function writeInteger(n: number): void {
  let p = used;
  if (n < 0) {
    arena[p++] = 45;
    n = -n;
  }
  used = Encoder.decimal(arena, p, n, Encoder.digitCount(n));
}

/** Texts longer than this go through Buffer's native write; shorter ones byte by byte. */
const LONGEST_LOOPED = 8;

/**
 * Writes a text's UTF-8 bytes at `used` (room made). A JS loop wins on short texts (a native
 * call costs more than a few bytes); on longer ones charCodeAt lost to the native write, most
 * on the broker's keys and fields, built by concatenation (an embedded producer and worker
 * spent 11% of their CPU here; 84-89 -> 76-82 us a job with the native write past 8).
 */
function writeText(s: string): void {
  const len = s.length;
  if (len > LONGEST_LOOPED) {
    used += arena.write(s, used, 'utf8');
    return;
  }
  const buf = arena;
  let p = used;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      used += buf.write(s, used, 'utf8');
      return;
    }
    buf[p++] = c;
  }
  used = p;
}

/**
 * `args` as a RequestArgs in the arena, or undefined when an argument is too long to copy (the
 * caller then builds an argv). Valid until release(): run the command, then release it.
 */
export function requestArgsOf(args: Arg[]): RequestArgs | undefined {
  const request = sharedInUse ? new RequestArgs() : shared;
  request.reset();
  for (let i = 0; i < args.length; i++) {
    let a = args[i]!;
    if (typeof a === 'number' && Number.isSafeInteger(a)) {
      room(21);
      const start = used;
      writeInteger(a);
      request.push(arena, start, used);
      continue;
    }
    if (typeof a !== 'string' && !Buffer.isBuffer(a)) a = String(a);
    if (a.length > LONGEST_COPIED) return undefined;
    // A text takes at most 3 bytes per UTF-16 unit.
    room(typeof a === 'string' ? 3 * a.length : a.length);
    const start = used;
    if (typeof a === 'string') writeText(a);
    else used += a.copy(arena, used);
    request.push(arena, start, used);
  }
  if (request === shared) sharedInUse = true;
  return request;
}

/** The command given `request` has run: the shared RequestArgs may serve the next call. */
export function releaseRequestArgs(request: RequestArgs): void {
  if (request === shared) sharedInUse = false;
}

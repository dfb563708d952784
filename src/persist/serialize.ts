// Turns one key's current value into the commands that recreate it (what a rewrite writes):
// strings SET, lists RPUSH, hashes HSET, sets SADD, sorted sets ZADD score member in score order (in chunks
// of 64 items, Redis's AOF_REWRITE_ITEMS_PER_CMD),
// streams through rewriteStream(), then PEXPIREAT with the absolute expiry time.
import type { HashValue } from '../engine/hash.js';
import { keyBytes, type StoredValue } from '../engine/keyspace.js';
import type { ListValue } from '../engine/list.js';
import type { SortedSetValue } from '../engine/sorted-set.js';
import type { Stream } from '../engine/stream.js';
import { formatDouble } from '../resp/encoder.js';
import { rewriteStream } from './rewrite-stream.js';

export type Argv = Array<Buffer | string>;

const ITEMS_PER_COMMAND = 64;

export class UnsupportedValueError extends Error {}

/** Appends the commands recreating `key` to `out`. */
export function serializeKey(key: string, value: StoredValue, expireAt: number | undefined, out: Argv[]): void {
  const k = keyBytes(key);
  if (Buffer.isBuffer(value)) {
    out.push(['SET', k, value]);
  } else if (value.typeName === 'list') {
    let cmd: Argv = ['RPUSH', k];
    for (const item of (value as ListValue).forward()) {
      cmd.push(item);
      if (cmd.length >= 2 + ITEMS_PER_COMMAND) {
        out.push(cmd);
        cmd = ['RPUSH', k];
      }
    }
    if (cmd.length > 2) out.push(cmd);
  } else if (value.typeName === 'hash') {
    let cmd: Argv = ['HSET', k];
    for (const [f, v] of (value as HashValue).entries()) {
      cmd.push(keyBytes(f), v);
      if (cmd.length >= 2 + ITEMS_PER_COMMAND * 2) {
        out.push(cmd);
        cmd = ['HSET', k];
      }
    }
    if (cmd.length > 2) out.push(cmd);
  } else if (value.typeName === 'set') {
    const members = (value as unknown as { members: Iterable<string> }).members;
    let cmd: Argv = ['SADD', k];
    for (const m of members) {
      cmd.push(keyBytes(m));
      if (cmd.length >= 2 + ITEMS_PER_COMMAND) {
        out.push(cmd);
        cmd = ['SADD', k];
      }
    }
    if (cmd.length > 2) out.push(cmd);
  } else if (value.typeName === 'zset') {
    let cmd: Argv = ['ZADD', k];
    for (const e of (value as unknown as SortedSetValue).entries()) {
      cmd.push(formatDouble(e.score), keyBytes(e.member));
      if (cmd.length >= 2 + ITEMS_PER_COMMAND * 2) {
        out.push(cmd);
        cmd = ['ZADD', k];
      }
    }
    if (cmd.length > 2) out.push(cmd);
  } else if (value.typeName === 'stream') {
    for (const cmd of rewriteStream(k, value as unknown as Stream)) out.push(cmd);
  } else {
    throw new UnsupportedValueError(`cannot rewrite a value of type ${(value as { typeName: string }).typeName}`);
  }
  if (expireAt !== undefined) out.push(['PEXPIREAT', k, String(expireAt)]);
}

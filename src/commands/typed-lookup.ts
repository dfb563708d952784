// Reading a key as the type a command works on, as Redis's lookupKey + checkType: the value when
// it has that type, undefined when the key is missing (or expired), WRONGTYPE otherwise.
import { Buffer } from 'node:buffer';
import type { Database, StoredValue, TypeName } from '../engine/keyspace.js';
import { HashValue } from '../engine/hash.js';
import { ListValue } from '../engine/list.js';
import { SetValue } from '../engine/set.js';
import { SortedSetValue } from '../engine/sorted-set.js';
import { Stream } from '../engine/stream.js';
import { Errors } from '../resp/errors.js';
import { fail } from '../resp/reply.js';

/** What a lookup of each type gives: strings are Buffers, the other types their engine class. */
export interface ValueOfType {
  string: Buffer;
  list: ListValue;
  hash: HashValue;
  set: SetValue;
  zset: SortedSetValue;
  stream: Stream;
}

/**
 * One `instanceof` per type, each with its own feedback: a single `value instanceof type` with
 * the class as a parameter sees every class, goes megamorphic and costs about 15 ns more per
 * lookup on a server holding several types. The type is a constant at each call site, so the
 * switch folds away where V8 inlines the lookup.
 */
function hasType(value: StoredValue, type: TypeName): boolean {
  switch (type) {
    case 'string':
      return value instanceof Buffer;
    case 'list':
      return value instanceof ListValue;
    case 'hash':
      return value instanceof HashValue;
    case 'set':
      return value instanceof SetValue;
    case 'zset':
      return value instanceof SortedSetValue;
    case 'stream':
      return value instanceof Stream;
  }
}

/** The value at `key` if it is of `type`; undefined when missing; WRONGTYPE for other types. */
export function lookupTyped<N extends TypeName>(db: Database, key: string, type: N): ValueOfType[N] | undefined {
  const value = db.get(key);
  if (value === undefined) return undefined;
  if (!hasType(value, type)) fail(Errors.wrongType);
  return value as ValueOfType[N];
}

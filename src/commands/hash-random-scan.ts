// HRANDFIELD key [count [WITHVALUES]] and HSCAN key cursor [MATCH p] [COUNT n] (t_hash.c and
// db.c's scanGenericCommand of Redis 7.0). HRANDFIELD: one random field, or a count of them,
// distinct for a positive count (the whole hash, in its order, when the count covers it), drawn
// independently for a negative one; RESP3 gives [field, value] pairs. HSCAN: a listpack hash
// comes whole in one call with cursor 0, in insertion order; a hashtable one is walked like SCAN
// walks the keyspace (scan-cursors.ts).
import type { HashValue } from '../engine/hash.js';
import { keyBytes, keyOf } from '../engine/keyspace.js';
import { fail, type Reply } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword } from './args.js';
import { checkDoubledCount, distinctPositions, randomCount, repeatedDraws } from './random-count.js';
import { parseCursor } from './keys.js';
import { memberScanOptions, scanStep } from './scan-cursors.js';
import { globMatch } from './glob.js';
import type { Context } from './types.js';
import { lookupTyped } from './typed-lookup.js';
import { byteRangesOf } from '../engine/byte-ranges.js';
import { ByteRangesReply } from './byte-ranges-reply.js';

type Field = [field: string, value: string];

function fieldsReply(ctx: Context, picks: Field[], withValues: boolean): Reply {
  if (withValues && ctx.client.resp === 3) return picks.map(([field, value]) => [keyBytes(field), keyBytes(value)]);
  const texts: string[] = [];
  for (const [field, value] of picks) {
    texts.push(field);
    if (withValues) texts.push(value);
  }
  return new ByteRangesReply(byteRangesOf(texts));
}

function randomField(fields: Field[]): Field {
  return fields[Math.floor(Math.random() * fields.length)]!;
}

export function hrandfield(ctx: Context, argv: Buffer[]): Reply {
  if (argv.length === 2) {
    const hash = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
    return hash === undefined ? null : keyBytes(randomField([...hash.stringEntries()])[0]);
  }
  const l = randomCount(argv[2]!);
  if (argv.length > 4 || (argv.length === 4 && !isKeyword(argv[3], 'withvalues'))) fail(Errors.syntax);
  const withValues = argv.length === 4;
  if (withValues) checkDoubledCount(l);
  const hash = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
  if (hash === undefined || l === 0n) return [];
  const fields = [...hash.stringEntries()];
  const unique = l > 0n;
  const abs = unique ? l : -l;
  if (!unique || abs === 1n) {
    const picks: Field[] = [];
    for (let n = repeatedDraws(abs); n > 0; n--) picks.push(randomField(fields));
    return fieldsReply(ctx, picks, withValues);
  }
  if (abs >= BigInt(fields.length)) return fieldsReply(ctx, fields, withValues);
  return fieldsReply(ctx, distinctPositions(fields.length, Number(abs)).map((i) => fields[i]!), withValues);
}

export function hscan(ctx: Context, argv: Buffer[]): Reply {
  const cursor = parseCursor(argv[2]!);
  const hash: HashValue | undefined = lookupTyped(ctx.db, keyOf(argv[1]!), 'hash');
  if (hash === undefined) return ['0', []];
  // Options are read after the key lookup, as Redis does (a missing key ignores bad ones).
  const { count, pattern } = memberScanOptions(argv);
  const found: string[] = [];
  if (hash.isListpack) {
    for (const [field, value] of hash.stringEntries()) if (pattern === null || globMatch(pattern, field)) found.push(field, value);
    return ['0', new ByteRangesReply(byteRangesOf(found))];
  }
  // The value is read when the field is visited: a parked scan resumes on fields changed since.
  const emit = (field: string): void => {
    if (pattern !== null && !globMatch(pattern, field)) return;
    const value = hash.getString(field);
    if (value !== undefined) found.push(field, value);
  };
  const next = scanStep(ctx.instance, cursor, hash, () => hash.fieldNames(), count, emit);
  return [next, new ByteRangesReply(byteRangesOf(found))];
}

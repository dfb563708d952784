// OBJECT and MEMORY USAGE compared with redis-server: encoding names per type and size, shared
// integers' REFCOUNT, and MEMORY USAGE where Redis's figure is deterministic (strings, listpacks,
// intsets, quicklists, streams; not dicts, whose size depends on an incremental rehash).
import type { DiffCase } from './case-types.js';
import type { Normaliser } from './normalize.js';

// Redis's idle time runs on an LRU clock of whole seconds, read from a cache its cron refreshes:
// a key set a moment ago shows 1 when a second boundary falls between SET and OBJECT.
const justNow: Normaliser = (frame) => {
  const raw = frame.raw.toString('latin1');
  return raw === ':0\r\n' || raw === ':1\r\n' ? ':<0 or 1>\r\n' : raw;
};

const repeat = (n: number, make: (i: number) => string[]): string[][] => Array.from({ length: n }, (_, i) => make(i));

export const cases: DiffCase[] = [
  {
    name: 'OBJECT ENCODING and REFCOUNT of every type, small and large',
    steps: [
      ['SET', 'int', '100'],
      ['SET', 'bigint', '123456'],
      ['SET', 'neg', '-5'],
      ['SET', 'toolong', '99999999999999999999'],
      ['SET', 'lead0', '007'],
      ['SET', 'emb', 'hello'],
      ['SET', 'raw', 'x'.repeat(45)],
      ['SET', 'emb44', 'y'.repeat(44)],
      ['INCR', 'counter'],
      ['RPUSH', 'list', 'a', 'b'],
      ['HSET', 'hash', 'f', 'v'],
      ['HSET', 'bighash', 'f', 'v'.repeat(65)],
      ['SADD', 'intset', '1', '2', '-3'],
      ['SADD', 'strset', 'a'],
      ['ZADD', 'zset', '1', 'a'],
      ['ZADD', 'bigzset', '1', 'z'.repeat(65)],
      ['XADD', 'stream', '1-1', 'f', 'v'],
      ...['int', 'bigint', 'neg', 'toolong', 'lead0', 'emb', 'raw', 'emb44', 'counter', 'list', 'hash', 'bighash', 'intset', 'strset', 'zset', 'bigzset', 'stream', 'nokey'].flatMap((k) => [
        ['OBJECT', 'ENCODING', k],
        ['OBJECT', 'REFCOUNT', k],
      ]),
      { argv: ['OBJECT', 'IDLETIME', 'emb'], mask: justNow },
      ['OBJECT', 'IDLETIME', 'nokey'],
      ['OBJECT', 'FREQ', 'emb'],
      ['OBJECT', 'FREQ', 'nokey'],
    ],
  },
  {
    name: 'encodings change with size: hash past 512 fields, zset past 128, intset past 512 or a non-integer',
    steps: [
      ...repeat(512, (i) => ['HSET', 'h', `f${i}`, 'v']),
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'one-more', 'v'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HDEL', 'h', 'one-more', 'f1'],
      ['OBJECT', 'ENCODING', 'h'],
      ...repeat(128, (i) => ['ZADD', 'z', String(i), `m${i}`]),
      ['OBJECT', 'ENCODING', 'z'],
      ['ZADD', 'z', '1000', 'extra'],
      ['OBJECT', 'ENCODING', 'z'],
      ...repeat(512, (i) => ['SADD', 's', String(i)]),
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 's', '512'],
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 'mixed', '1', 'x'],
      ['OBJECT', 'ENCODING', 'mixed'],
    ],
  },
  {
    name: 'MEMORY USAGE of strings, listpacks, intsets, lists and streams; missing keys; SAMPLES',
    steps: [
      ['SET', 'i', '100'],
      ['SET', 'e', 'hello'],
      ['SET', 'r', 'x'.repeat(45)],
      ['SET', 'long', 'y'.repeat(500)],
      ['SET', 'a-much-longer-key-name-than-the-others', 'v'],
      ['RPUSH', 'l', 'a'],
      ...repeat(300, (i) => ['RPUSH', 'bl', `item${i}`]),
      ['HSET', 'h', 'f', 'v', 'g', '12'],
      ['SADD', 'is', '1', '70000'],
      ['ZADD', 'z', '1', 'a', '2.5', 'b'],
      ['XADD', 'x', '1-1', 'f', 'v'],
      ...repeat(150, (i) => ['XADD', 'bx', `${i + 1}-0`, 'field', `value-${i}`]),
      ['XGROUP', 'CREATE', 'x', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 'x', '>'],
      ...['i', 'e', 'r', 'long', 'a-much-longer-key-name-than-the-others', 'l', 'bl', 'h', 'is', 'z', 'x', 'bx', 'nokey'].flatMap((k) => [
        ['MEMORY', 'USAGE', k],
        ['MEMORY', 'USAGE', k, 'SAMPLES', '0'],
      ]),
      ['MEMORY', 'USAGE', 'bl', 'SAMPLES', '1'],
      ['MEMORY', 'USAGE', 'i', 'SAMPLES', '-1'],
      ['MEMORY', 'USAGE', 'i', 'SAMPLES', 'x'],
      ['MEMORY', 'USAGE', 'i', 'SAMPLES'],
      ['MEMORY', 'USAGE', 'i', 'foo'],
      ['MEMORY', 'USAGE', 'nokey', 'SAMPLES', 'x'],
      ['MEMORY', 'USAGE'],
    ],
  },
  {
    name: 'OBJECT and MEMORY argument errors and HELP',
    steps: [
      ['OBJECT'],
      ['OBJECT', 'ENCODING'],
      ['OBJECT', 'ENCODING', 'a', 'b'],
      ['OBJECT', 'FOO', 'k'],
      ['OBJECT', 'HELP'],
      ['MEMORY'],
      ['MEMORY', 'FOO'],
      ['MEMORY', 'HELP'],
      ['MEMORY', 'DOCTOR'],
      { argv: ['COMMAND', 'INFO', 'OBJECT', 'MEMORY'], mask: 'commandInfoHead' },
    ],
  },
];

/** MEMORY STATS: the field names, in order (the figures are each server's own); nested db maps too. */
const statsFieldNames: Normaliser = (frame) => {
  const names = (f: typeof frame): string[] => {
    const children = f.children ?? [];
    const out: string[] = [];
    for (let i = 0; i + 1 < children.length; i += 2) {
      out.push(children[i]!.raw.toString('latin1'));
      if (children[i + 1]!.children !== undefined) out.push(`{${names(children[i + 1]!).join('')}}`);
    }
    return out;
  };
  return `${frame.type}${names(frame).join('')}`;
};

cases.push({
  name: 'MEMORY STATS fields and PURGE (MALLOC-STATS differs: redis-server has jemalloc, sluice answers as Redis without it)',
  steps: [
    { argv: ['MEMORY', 'STATS'], mask: statsFieldNames },
    ['SET', 'k', 'v'],
    ['SET', 'e', 'v', 'EX', '100'],
    ['SELECT', '3'],
    ['SET', 'k', 'v'],
    ['SELECT', '0'],
    { argv: ['MEMORY', 'STATS'], mask: statsFieldNames },
    ['MEMORY', 'PURGE'],
    ['MEMORY', 'STATS', 'extra'],
    ['MEMORY', 'PURGE', 'extra'],
  ],
});

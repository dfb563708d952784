// Redis 7.0's encoding and log parameters compared with redis-server: CONFIG GET/SET of each one
// (defaults, the ziplist aliases, Redis's parsing and error texts), OBJECT ENCODING at the
// thresholds they set (one-way conversions), and SLOWLOG. Every case puts the defaults back:
// the servers are shared by all cases.
import type { DiffCase, Step } from './case-types.js';
import type { Frame } from './frames.js';
import { type Normaliser, sortedMap } from './normalize.js';

const repeat = (n: number, make: (i: number) => string[]): string[][] => Array.from({ length: n }, (_, i) => make(i));

/** name → [default, alias] */
const PARAMS: Array<[string, string, string | null]> = [
  ['set-max-intset-entries', '512', null],
  ['hash-max-listpack-entries', '512', 'hash-max-ziplist-entries'],
  ['hash-max-listpack-value', '64', 'hash-max-ziplist-value'],
  ['zset-max-listpack-entries', '128', 'zset-max-ziplist-entries'],
  ['zset-max-listpack-value', '64', 'zset-max-ziplist-value'],
  ['list-max-listpack-size', '-2', 'list-max-ziplist-size'],
  ['list-compress-depth', '0', null],
  ['latency-monitor-threshold', '0', null],
  ['slowlog-log-slower-than', '10000', null],
  ['slowlog-max-len', '128', null],
  // Stored only (sluice has nothing they change): the same parsing, bounds and errors.
  ['repl-diskless-load', 'disabled', null],
  ['repl-diskless-sync-max-replicas', '0', null],
  ['rdbcompression', 'yes', null],
  ['loglevel', 'notice', null],
  ['dynamic-hz', 'yes', null],
  ['busy-reply-threshold', '5000', 'lua-time-limit'],
  ['rdb-key-save-delay', '0', null],
  ['key-load-delay', '0', null],
  ['shutdown-timeout', '10', null],
  ['loading-process-events-interval-bytes', '2097152', null],
];

const restoreDefaults: string[][] = PARAMS.map(([name, value]) => ['CONFIG', 'SET', name, value]);

/** Values every parameter is tried with: integers at and past the bounds, units, junk. */
const VALUES = [
  '0', '1', '-1', '-2', '-5', '7', '05', '+5', '-0', '0x10', '1.5', '', 'abc', '1k', '1kb', '1gb', '1.5k',
  '2147483647', '2147483648', '-2147483648', '-2147483649',
  '9223372036854775807', '9223372036854775808', '-9223372036854775808', '99999999999999999999',
];

/** A SLOWLOG GET reply with what differs by nature masked: id, time, duration, client address. */
const slowlogEntries: Normaliser = (frame: Frame) => {
  const entries = frame.children;
  if (frame.type === '-' || entries === undefined) return frame.raw;
  return entries
    .map((e) => {
      const parts = e.children ?? [];
      const argv = parts[3]?.raw.toString('latin1') ?? '?';
      return `[${parts.length} fields: argv ${argv} name ${parts[5]?.raw.toString('latin1') ?? '?'}]`;
    })
    .join('');
};
const slowlogGet = (...args: string[]): Step => ({ argv: ['SLOWLOG', 'GET', ...args], mask: slowlogEntries });

export const cases: DiffCase[] = [
  {
    name: 'CONFIG SET of the stored-only enum and yes/no parameters: any case, stored lower-case',
    steps: [
      ...[['repl-diskless-load', 'SWAPDB'], ['repl-diskless-load', 'on-empty-db'], ['loglevel', 'Warning'], ['rdbcompression', 'NO'], ['dynamic-hz', 'no']].flatMap(
        ([name, value]) => [['CONFIG', 'SET', name!, value!], ['CONFIG', 'GET', name!]],
      ),
      ...restoreDefaults,
    ],
  },
  {
    name: 'CONFIG GET / SET of replicaof (alias slaveof) and daemonize: read, never set',
    steps: [
      ['CONFIG', 'GET', 'replicaof'],
      ['CONFIG', 'GET', 'slaveof'],
      ['CONFIG', 'GET', 'daemonize'],
      { argv: ['CONFIG', 'GET', 'repl*of'], mask: sortedMap },
      ['CONFIG', 'SET', 'replicaof', '127.0.0.1 1'],
      ['CONFIG', 'SET', 'slaveof', 'no one'],
      ['CONFIG', 'SET', 'daemonize', 'no'],
      ['CONFIG', 'GET', 'replicaof'],
    ],
  },
  {
    name: 'CONFIG GET: the encoding and log parameters, their defaults and ziplist aliases',
    steps: [
      ...PARAMS.flatMap(([name, , alias]) => [['CONFIG', 'GET', name], ...(alias === null ? [] : [['CONFIG', 'GET', alias]])]),
      { argv: ['CONFIG', 'GET', 'zset-max-*'], mask: sortedMap },
      { argv: ['CONFIG', 'GET', 'hash-max-*'], mask: sortedMap },
      { argv: ['CONFIG', 'GET', 'list-*'], mask: sortedMap },
      { argv: ['CONFIG', 'GET', '*ziplist*'], mask: sortedMap },
      { argv: ['CONFIG', 'GET', 'slowlog-*'], mask: sortedMap },
      { argv: ['CONFIG', 'GET', 'ZSET-MAX-ZIPLIST-ENTRIES'], mask: sortedMap },
    ],
  },
  {
    name: "CONFIG SET of each parameter: Redis's parsing, bounds and error texts; aliases set the same value",
    steps: [
      ...PARAMS.flatMap(([name, , alias]) =>
        VALUES.flatMap((v) => [['CONFIG', 'SET', name, v], ['CONFIG', 'GET', name], ...(alias === null ? [] : [['CONFIG', 'SET', alias, v], ['CONFIG', 'GET', name]])]),
      ),
      ['CONFIG', 'SET', 'zset-max-ziplist-entries', '5', 'zset-max-listpack-entries', '6'],
      ['CONFIG', 'GET', 'zset-max-ziplist-entries'],
      ['CONFIG', 'SET', 'hash-max-listpack-value', '10', 'hash-max-ziplist-value', '11'],
      ['CONFIG', 'GET', 'hash-max-listpack-value'],
      ['CONFIG', 'SET', 'zset-max-listpack-entries', '5', 'zset-max-listpack-entries', '6'],
      ['CONFIG', 'SET', 'list-compress-depth', '3', 'slowlog-max-len', '-1'],
      ['CONFIG', 'GET', 'list-compress-depth'],
      ['CONFIG', 'SET', 'HASH-MAX-ZIPLIST-ENTRIES', '9'],
      ['CONFIG', 'GET', 'hash-max-listpack-entries'],
      ...restoreDefaults,
    ],
  },
  {
    name: 'OBJECT ENCODING follows hash-max-listpack-entries / -value (set through either name); no way back',
    steps: [
      ['CONFIG', 'SET', 'hash-max-ziplist-entries', '3', 'hash-max-listpack-value', '4'],
      ['HSET', 'h', 'a', '1', 'b', '2', 'c', '3'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'h', 'd', '4'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HDEL', 'h', 'a', 'b', 'c'],
      ['OBJECT', 'ENCODING', 'h'],
      ['HSET', 'v', 'f', '1234'],
      ['OBJECT', 'ENCODING', 'v'],
      ['HSET', 'v', 'f', '12345'],
      ['OBJECT', 'ENCODING', 'v'],
      ['HSET', 'k', 'abcde', '1'],
      ['OBJECT', 'ENCODING', 'k'],
      ['HSETNX', 'n', 'f', '123456'],
      ['OBJECT', 'ENCODING', 'n'],
      ['HINCRBY', 'i', 'f', '9999'],
      ['OBJECT', 'ENCODING', 'i'],
      ['HINCRBY', 'i', 'f', '1'],
      ['OBJECT', 'ENCODING', 'i'],
      ['HINCRBYFLOAT', 'fl', 'f', '1.5'],
      ['OBJECT', 'ENCODING', 'fl'],
      ['CONFIG', 'SET', 'hash-max-listpack-entries', '0'],
      ['HSET', 'zero', 'f', 'v'],
      ['OBJECT', 'ENCODING', 'zero'],
      ['CONFIG', 'SET', 'hash-max-listpack-entries', '600'],
      ...repeat(550, (i) => ['HSET', 'big', `f${i}`, 'v']),
      ['OBJECT', 'ENCODING', 'big'],
      ['HGET', 'big', 'f549'],
      ['HLEN', 'big'],
      ...restoreDefaults,
    ],
  },
  {
    name: 'OBJECT ENCODING follows zset-max-listpack-entries / -value (set through either name); no way back',
    steps: [
      ['CONFIG', 'SET', 'zset-max-ziplist-entries', '3', 'zset-max-listpack-value', '4'],
      ['ZADD', 'z', '1', 'a', '2', 'b', '3', 'c'],
      ['OBJECT', 'ENCODING', 'z'],
      ['ZADD', 'z', '4', 'd'],
      ['OBJECT', 'ENCODING', 'z'],
      ['ZREM', 'z', 'a', 'b', 'c'],
      ['OBJECT', 'ENCODING', 'z'],
      ['ZADD', 'z', '-0', 'zero'],
      ['ZSCORE', 'z', 'zero'],
      ['ZADD', 'w', '1', 'abcd'],
      ['OBJECT', 'ENCODING', 'w'],
      ['ZADD', 'w', '2', 'abcd'],
      ['OBJECT', 'ENCODING', 'w'],
      ['ZADD', 'w', '3', 'abcde'],
      ['OBJECT', 'ENCODING', 'w'],
      ['ZADD', 'long', '1', 'abcde'],
      ['OBJECT', 'ENCODING', 'long'],
      ['ZINCRBY', 'inc', '1', 'abcdef'],
      ['OBJECT', 'ENCODING', 'inc'],
      ['CONFIG', 'SET', 'zset-max-listpack-entries', '0'],
      ['ZADD', 'zero', '1', 'a'],
      ['OBJECT', 'ENCODING', 'zero'],
      ['CONFIG', 'SET', 'zset-max-listpack-entries', '300', 'zset-max-listpack-value', '64'],
      ...repeat(250, (i) => ['ZADD', 'big', String(i % 7), `m${i}`]),
      ['OBJECT', 'ENCODING', 'big'],
      ['ZSCORE', 'big', 'm200'],
      ['ZRANK', 'big', 'm200'],
      ['ZRANGE', 'big', '100', '104', 'WITHSCORES'],
      ['ZSCAN', 'big', '0', 'COUNT', '1000'],
      ['ZREM', 'big', 'm1', 'm2', 'm3'],
      ['ZCARD', 'big'],
      ...repeat(60, (i) => ['ZADD', 'big', '0.5', `n${i}`]),
      ['OBJECT', 'ENCODING', 'big'],
      ['ZRANGE', 'big', '0', '9'],
      ['ZADD', 'big', '0', '-0'],
      ['ZSCORE', 'big', '-0'],
      ...restoreDefaults,
    ],
  },
  {
    name: 'set-max-intset-entries and the list parameters: intset ↔ hashtable, lists stay quicklists',
    steps: [
      ['CONFIG', 'SET', 'set-max-intset-entries', '2'],
      ['SADD', 's', '1', '2'],
      ['OBJECT', 'ENCODING', 's'],
      ['SADD', 's', '3'],
      ['OBJECT', 'ENCODING', 's'],
      ['CONFIG', 'SET', 'list-max-ziplist-size', '1', 'list-compress-depth', '2'],
      ['RPUSH', 'l', 'a', 'b', 'c', 'd', 'e'],
      ['OBJECT', 'ENCODING', 'l'],
      ['LRANGE', 'l', '0', '-1'],
      ['CONFIG', 'SET', 'list-max-listpack-size', '-5'],
      ['RPUSH', 'l', 'f'],
      ['OBJECT', 'ENCODING', 'l'],
      ...restoreDefaults,
    ],
  },
  {
    name: 'SLOWLOG: GET/LEN/RESET/HELP, the threshold, max-len, trimmed arguments, redaction, EXEC',
    steps: [
      ['SLOWLOG', 'HELP'],
      ['SLOWLOG', 'NOPE'],
      ['SLOWLOG', 'LEN', 'x'],
      ['SLOWLOG', 'RESET', 'x'],
      slowlogGet('1', '2'),
      slowlogGet('-2'),
      slowlogGet('abc'),
      slowlogGet('99999999999999999999'),
      ['SLOWLOG'],
      ['CONFIG', 'SET', 'slowlog-log-slower-than', '-1'],
      ['SLOWLOG', 'RESET'],
      ['PING'],
      ['SLOWLOG', 'LEN'],
      ['CONFIG', 'SET', 'slowlog-log-slower-than', '0'],
      ['SLOWLOG', 'RESET'],
      ['SLOWLOG', 'LEN'],
      ['CLIENT', 'SETNAME', 'differ'],
      ['SET', 'k', 'v'],
      ['SADD', 'set', ...repeat(33, (i) => [String(i)]).flat()],
      ['SADD', 'set', 'foo', 'A'.repeat(129)],
      ['SET', 'long', 'B'.repeat(128)],
      ['CONFIG', 'SET', 'masterauth', 'secret', 'slowlog-max-len', '200'],
      ['CONFIG', 'SET', 'masterauth', ''],
      ['AUTH', 'nopass'],
      ['MULTI'],
      ['INCR', 'n'],
      ['LPUSH', 'list', 'a'],
      ['EXEC'],
      ['SLOWLOG', 'LEN'],
      slowlogGet(),
      slowlogGet('0'),
      slowlogGet('3'),
      slowlogGet('-1'),
      ['CONFIG', 'SET', 'slowlog-max-len', '3'],
      ['PING'],
      ['SLOWLOG', 'LEN'],
      slowlogGet('-1'),
      ['CONFIG', 'SET', 'slowlog-max-len', '0'],
      ['PING'],
      ['SLOWLOG', 'LEN'],
      ['CONFIG', 'SET', 'slowlog-log-slower-than', '100000000', 'slowlog-max-len', '128'],
      ['SLOWLOG', 'RESET'],
      ['PING'],
      ['SLOWLOG', 'LEN'],
      ['CLIENT', 'SETNAME', ''],
      ...restoreDefaults,
      ['SLOWLOG', 'RESET'],
    ],
  },
];

// Client-side caching compared with redis-server: CLIENT TRACKING's options and errors in
// Redis's order, CACHING, GETREDIR and TRACKINGINFO, and (RESP3) the invalidation pushes a
// tracking client gets after its own command's reply: a key it read and then changed, a
// transaction, FLUSHALL's null, NOLOOP, BCAST prefixes, OPTIN with CACHING yes. OBJECT IDLETIME
// against lookups that touch a key and those that do not (TYPE, EXISTS, TTL, OBJECT).
import type { DiffCase, Step } from './case-types.js';
import type { Normaliser } from './normalize.js';

/** A command answered by its reply and then one invalidation push. */
const pushed = (...argv: string[]): Step => ({ argv, replies: 2 });

// RESTORE ... IDLETIME 100 then OBJECT IDLETIME: 100, or 101 when a second boundary falls between.
const about100: Normaliser = (frame) => {
  const raw = frame.raw.toString('latin1');
  return raw === ':100\r\n' || raw === ':101\r\n' ? ':<100 or 101>\r\n' : raw;
};
const justNow: Normaliser = (frame) => {
  const raw = frame.raw.toString('latin1');
  return raw === ':0\r\n' || raw === ':1\r\n' ? ':<0 or 1>\r\n' : raw;
};

/** DUMP "hello" (RDB 10, CRC64): a payload both servers accept. */
const HELLO_PAYLOAD = '\x00\x05hello\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a';

export const cases: DiffCase[] = [
  {
    name: 'CLIENT TRACKING options and errors, CACHING, GETREDIR, TRACKINGINFO',
    steps: [
      ['CLIENT', 'GETREDIR'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING'],
      ['CLIENT', 'TRACKING', 'maybe'],
      ['CLIENT', 'TRACKING', 'on', 'foo'],
      ['CLIENT', 'TRACKING', 'on', 'REDIRECT'],
      ['CLIENT', 'TRACKING', 'on', 'REDIRECT', 'abc'],
      ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '0'],
      ['CLIENT', 'TRACKING', 'on', 'REDIRECT', '999999'],
      ['CLIENT', 'TRACKING', 'off', 'REDIRECT', '999999'],
      ['CLIENT', 'TRACKING', 'on', 'PREFIX', 'a'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'OPTIN'],
      ['CLIENT', 'TRACKING', 'on', 'OPTIN', 'OPTOUT'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'foo', 'PREFIX', 'foobar'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'foobar', 'PREFIX', 'foo'],
      ['CLIENT', 'CACHING', 'yes'],
      ['CLIENT', 'TRACKING', 'on', 'OPTIN'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'CACHING', 'no'],
      ['CLIENT', 'CACHING', 'maybe'],
      ['CLIENT', 'CACHING', 'yes'],
      ['CLIENT', 'TRACKINGINFO'],
      ['GET', 'x'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'on', 'OPTOUT'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST'],
      ['CLIENT', 'GETREDIR'],
      ['CLIENT', 'TRACKING', 'on', 'NOLOOP'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKING', 'on', 'OPTOUT'],
      ['CLIENT', 'CACHING', 'yes'],
      ['CLIENT', 'CACHING', 'no'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'b', 'PREFIX', 'a'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'ab'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'c'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'on'],
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKINGINFO'],
      ['CLIENT', 'GETREDIR'],
      ['CONFIG', 'GET', 'tracking-table-max-keys'],
      ['CONFIG', 'SET', 'tracking-table-max-keys', '-1'],
      ['CONFIG', 'SET', 'tracking-table-max-keys', 'x'],
      ['CONFIG', 'SET', 'tracking-table-max-keys', '10'],
      ['CONFIG', 'GET', 'tracking-table-max-keys'],
      ['CONFIG', 'SET', 'tracking-table-max-keys', '1000000'],
    ],
  },
  {
    name: 'RESP3 invalidation pushes after the reply: keys read, MULTI, FLUSHALL, NOLOOP, BCAST, OPTIN',
    tcpOnly: true,
    protocols: [3],
    steps: [
      ['CLIENT', 'TRACKING', 'on'],
      ['SET', 'k', '1'],
      ['GET', 'k'],
      pushed('SET', 'k', '2'),
      ['SET', 'k', '3'],
      ['MGET', 'k', 'k2'],
      pushed('DEL', 'k'),
      pushed('SET', 'k2', 'x'),
      ['HSET', 'h', 'f', '1'],
      ['HGET', 'h', 'f'],
      pushed('HDEL', 'h', 'f'),
      ['SET', 'a', '1'],
      ['GET', 'a'],
      ['MULTI'],
      ['INCR', 'a'],
      ['GET', 'a'],
      pushed('EXEC'),
      ['GET', 'a'],
      pushed('FLUSHALL'),
      ['SET', 'a', '1'],
      ['CLIENT', 'TRACKING', 'on', 'NOLOOP'],
      ['GET', 'n'],
      ['SET', 'n', '1'],
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKING', 'on', 'BCAST', 'PREFIX', 'p:'],
      pushed('SET', 'p:1', 'x'),
      ['SET', 'q:1', 'x'],
      pushed('MSET', 'p:3', 'x', 'q:2', 'y', 'p:2', 'z', 'p:10', 'w'),
      ['CLIENT', 'TRACKING', 'off'],
      ['CLIENT', 'TRACKING', 'on', 'OPTIN'],
      ['GET', 'o'],
      ['SET', 'o', '1'],
      ['CLIENT', 'CACHING', 'yes'],
      ['GET', 'o'],
      pushed('SET', 'o', '2'),
      ['CLIENT', 'TRACKING', 'off'],
    ],
  },
  {
    name: 'OBJECT IDLETIME: TYPE, EXISTS, TTL and OBJECT leave the access time alone; GET and TOUCH reset it',
    steps: [
      ['DEL', 'r'],
      ['RESTORE', 'r', '0', HELLO_PAYLOAD, 'IDLETIME', '100'],
      { argv: ['OBJECT', 'IDLETIME', 'r'], mask: about100 },
      ['TYPE', 'r'],
      ['EXISTS', 'r'],
      ['TTL', 'r'],
      ['PTTL', 'r'],
      ['EXPIRETIME', 'r'],
      ['OBJECT', 'ENCODING', 'r'],
      ['SCAN', '0', 'TYPE', 'string'],
      ['KEYS', 'r*'],
      { argv: ['OBJECT', 'IDLETIME', 'r'], mask: about100 },
      ['TOUCH', 'r', 'nokey'],
      { argv: ['OBJECT', 'IDLETIME', 'r'], mask: justNow },
      ['RESTORE', 'r', '0', HELLO_PAYLOAD, 'IDLETIME', '100', 'REPLACE'],
      ['GET', 'r'],
      { argv: ['OBJECT', 'IDLETIME', 'r'], mask: justNow },
      ['RESTORE', 'r', '0', HELLO_PAYLOAD, 'IDLETIME', '100', 'REPLACE'],
      ['APPEND', 'r', '!'],
      { argv: ['OBJECT', 'IDLETIME', 'r'], mask: justNow },
      ['OBJECT', 'IDLETIME', 'nokey'],
    ],
  },
];

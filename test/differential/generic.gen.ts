// Random steps for the generic keyspace, strings, hashes and sets. Stream engineers add their
// own `<family>.gen.ts` beside this file exporting `generators` the same way.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

/** Some fields/values, 1..n of them. */
function several<T>(rng: Rng, n: number, make: () => T): T[] {
  return Array.from({ length: 1 + rng.int(n) }, make);
}

// Expiry times are far in the future (nothing expires mid-script, so runs are deterministic) or
// already past (the key is deleted at once); TTL-like replies are masked to "positive".
const futureSeconds = (rng: Rng) => String(100 + rng.int(1000));
const pastSeconds = (rng: Rng) => rng.pick(['1', '100', '-5']);

export const generators: StepGenerator[] = [
  // keyspace
  gen('del', 3, (r, s) => ['DEL', ...several(r, 3, s.key)]),
  gen('exists', 3, (r, s) => ['EXISTS', ...several(r, 3, s.key)]),
  gen('type', 3, (r, s) => ['TYPE', s.key()]),
  gen('keys', 1, (r) => ({ argv: ['KEYS', r.pick(['*', 'k[0-2]', 'k?', '*1*'])], mask: 'sorted' })),
  gen('scan', 1, (r) => ({
    // COUNT large enough for one call: Redis's bucket walk and ours then both return everything.
    argv: ['SCAN', '0', 'COUNT', '1000', ...(r.chance(0.5) ? ['MATCH', r.pick(['k*', 'k[13]'])] : []), ...(r.chance(0.3) ? ['TYPE', r.pick(['string', 'hash', 'set'])] : [])],
    mask: 'scanReply',
  })),
  gen('rename', 2, (r, s) => [r.pick(['RENAME', 'RENAMENX']), s.key(r.pick(['string', 'hash', 'set'])), s.key()]),
  gen('dbsize', 1, () => ['DBSIZE']),
  // Moves the rest of the script between two databases, so commands meet per-db keyspaces.
  gen('select', 0.5, (r) => ['SELECT', r.pick(['0', '1'])]),
  gen('flushdb', 0.2, () => ['FLUSHDB']),
  gen('randomkey', 0.5, () => ({ argv: ['RANDOMKEY'], mask: 'typeOnly' })),
  gen('expire', 3, (r, s) => {
    const cmd = r.pick(['EXPIRE', 'PEXPIRE', 'EXPIREAT', 'PEXPIREAT']);
    const past = r.chance(0.2);
    let t: string;
    if (cmd === 'EXPIRE') t = past ? '-1' : futureSeconds(r);
    else if (cmd === 'PEXPIRE') t = past ? '0' : String(Number(futureSeconds(r)) * 1000);
    else if (cmd === 'EXPIREAT') t = past ? pastSeconds(r) : String(Math.floor(Date.now() / 1000) + 1000 + r.int(1000));
    else t = past ? pastSeconds(r) : String(Date.now() + 1_000_000 + r.int(1000));
    const flags = r.chance(0.4) ? [r.pick(['NX', 'XX', 'GT', 'LT', 'nx', 'BAD'])] : [];
    return [cmd, s.key(r.pick(['string', 'hash', 'set'])), t, ...flags];
  }),
  gen('ttl', 2, (r, s) => ({ argv: [r.pick(['TTL', 'PTTL', 'EXPIRETIME', 'PEXPIRETIME']), s.key()], mask: 'positive' })),
  gen('persist', 1, (r, s) => ['PERSIST', s.key()]),

  // strings
  gen('set', 6, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.2)) opts.push(r.pick(['NX', 'XX']));
    if (r.chance(0.2)) opts.push('GET');
    if (r.chance(0.2)) opts.push(...r.pick([['EX', futureSeconds(r)], ['PX', '5000000'], ['KEEPTTL'], ['EX', '0'], ['PX', 'x']]));
    return ['SET', s.key('string'), s.value(), ...opts];
  }),
  gen('get', 5, (r, s) => ['GET', s.key('string')]),
  gen('setnx', 1, (r, s) => ['SETNX', s.key('string'), s.value()]),
  gen('setex', 1, (r, s) => [r.pick(['SETEX', 'PSETEX']), s.key('string'), r.pick([futureSeconds(r), '0', '-3']), s.value()]),
  gen('getdel', 1, (r, s) => ['GETDEL', s.key('string')]),
  gen('getex', 1, (r, s) => ['GETEX', s.key('string'), ...r.pick([[], ['PERSIST'], ['EX', futureSeconds(r)], ['PXAT', '1'], ['EX']])]),
  gen('mget', 2, (r, s) => ['MGET', ...several(r, 4, () => s.key('string'))]),
  gen('mset', 2, (r, s) => [r.pick(['MSET', 'MSETNX']), ...several(r, 3, () => [s.key('string'), s.value()]).flat()]),
  gen('incr', 4, (r, s) => {
    const cmd = r.pick(['INCR', 'DECR', 'INCRBY', 'DECRBY']);
    return cmd.endsWith('BY') ? [cmd, s.key('string'), r.pick(['1', '-7', '100', '9223372036854775807', 'x'])] : [cmd, s.key('string')];
  }),
  gen('incrbyfloat', 2, (r, s) => ['INCRBYFLOAT', s.key('string'), r.pick(['0.1', '-2.5', '1e3', '3', '0.0001', 'abc', '1.5e-7'])]),
  gen('append', 2, (r, s) => ['APPEND', s.key('string'), s.value()]),
  gen('strlen', 1, (r, s) => ['STRLEN', s.key('string')]),
  gen('getrange', 1, (r, s) => ['GETRANGE', s.key('string'), String(r.int(6) - 3), String(r.int(8) - 3)]),
  gen('setrange', 1, (r, s) => ['SETRANGE', s.key('string'), String(r.int(6)), s.value()]),

  // hashes
  gen('hset', 5, (r, s) => [r.pick(['HSET', 'HMSET']), s.key('hash'), ...several(r, 3, () => [s.field(), s.value()]).flat()]),
  gen('hsetnx', 1, (r, s) => ['HSETNX', s.key('hash'), s.field(), s.value()]),
  gen('hget', 3, (r, s) => ['HGET', s.key('hash'), s.field()]),
  gen('hmget', 1, (r, s) => ['HMGET', s.key('hash'), ...several(r, 3, s.field)]),
  gen('hgetall', 2, (r, s) => [r.pick(['HGETALL', 'HKEYS', 'HVALS']), s.key('hash')]),
  gen('hdel', 2, (r, s) => ['HDEL', s.key('hash'), ...several(r, 3, s.field)]),
  gen('hlen', 1, (r, s) => (r.chance(0.3) ? ['HLEN', s.key('hash')] : [r.pick(['HEXISTS', 'HSTRLEN']), s.key('hash'), s.field()])),
  gen('hincrby', 2, (r, s) => ['HINCRBY', s.key('hash'), s.field(), r.pick(['1', '-3', '9223372036854775807', 'z'])]),
  gen('hincrbyfloat', 1, (r, s) => ['HINCRBYFLOAT', s.key('hash'), s.field(), r.pick(['0.1', '-1.25', 'inf', '2e2'])]),

  // sets
  gen('sadd', 5, (r, s) => ['SADD', s.key('set'), ...several(r, 4, s.field)]),
  gen('srem', 2, (r, s) => ['SREM', s.key('set'), ...several(r, 3, s.field)]),
  gen('scard', 1, (r, s) => ['SCARD', s.key('set')]),
  gen('sismember', 2, (r, s) => ['SISMEMBER', s.key('set'), s.field()]),
  gen('smismember', 1, (r, s) => ['SMISMEMBER', s.key('set'), ...several(r, 3, s.field)]),
  gen('smembers', 2, (r, s) => ({ argv: ['SMEMBERS', s.key('set')], mask: 'sorted' })),
];

// Random steps for the list commands over the shared key space (so WRONGTYPE paths against
// strings, hashes, sets and streams come up), compared with redis-server like every generator.
// Blocking commands appear with a short timeout: with data they pop at once, without they time
// out after 10 ms on both servers.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

function several<T>(rng: Rng, n: number, make: () => T): T[] {
  return Array.from({ length: 1 + rng.int(n) }, make);
}

const index = (r: Rng) => r.pick([String(r.int(12) - 6), String(r.int(40) - 20), 'x', '9223372036854775807', '-9223372036854775808']);
const end = (r: Rng) => r.pick(['LEFT', 'RIGHT', 'left', 'right', 'UP']);
const count = (r: Rng) => r.pick(['0', '1', '2', '5', '-1', 'x']);
const timeout = (r: Rng) => r.pick(['0.01', '0.01', '-1', 'x']);

export const generators: StepGenerator[] = [
  gen('lpush', 5, (r, s) => [r.pick(['LPUSH', 'RPUSH']), s.key('list'), ...several(r, 4, s.value)]),
  gen('pushx', 1, (r, s) => [r.pick(['LPUSHX', 'RPUSHX']), s.key('list'), ...several(r, 2, s.value)]),
  gen('pop', 3, (r, s) => [r.pick(['LPOP', 'RPOP']), s.key('list'), ...(r.chance(0.5) ? [count(r)] : [])]),
  gen('llen', 1, (r, s) => ['LLEN', s.key('list')]),
  gen('lrange', 3, (r, s) => ['LRANGE', s.key('list'), index(r), index(r)]),
  gen('lindex', 1, (r, s) => ['LINDEX', s.key('list'), index(r)]),
  gen('lset', 1, (r, s) => ['LSET', s.key('list'), index(r), s.value()]),
  gen('linsert', 1, (r, s) => ['LINSERT', s.key('list'), r.pick(['BEFORE', 'AFTER', 'after', 'NEAR']), s.value(), s.value()]),
  gen('lrem', 1, (r, s) => ['LREM', s.key('list'), r.pick(['0', '1', '-1', '2', '-2', 'x']), s.value()]),
  gen('ltrim', 1, (r, s) => ['LTRIM', s.key('list'), index(r), index(r)]),
  gen('lpos', 1, (r, s) => {
    const opts: string[] = [];
    if (r.chance(0.4)) opts.push('RANK', r.pick(['1', '2', '-1', '-2', '0', 'x']));
    if (r.chance(0.4)) opts.push('COUNT', r.pick(['0', '1', '2', '-1']));
    if (r.chance(0.3)) opts.push('MAXLEN', r.pick(['0', '2', '5', '-1']));
    return ['LPOS', s.key('list'), s.value(), ...opts];
  }),
  gen('lmove', 2, (r, s) =>
    r.chance(0.3) ? ['RPOPLPUSH', s.key('list'), s.key('list')] : ['LMOVE', s.key('list'), s.key('list'), end(r), end(r)],
  ),
  gen('lmpop', 1, (r, s) => {
    const keys = several(r, 3, () => s.key('list'));
    return ['LMPOP', r.chance(0.9) ? String(keys.length) : r.pick(['0', 'x', '9']), ...keys, end(r), ...(r.chance(0.5) ? ['COUNT', count(r)] : [])];
  }),
  gen('blocking', 0.4, (r, s) => {
    const kind = r.int(4);
    if (kind === 0) return [r.pick(['BLPOP', 'BRPOP']), ...several(r, 2, () => s.key('list')), timeout(r)];
    if (kind === 1) return ['BLMOVE', s.key('list'), s.key('list'), end(r), end(r), timeout(r)];
    if (kind === 2) return ['BRPOPLPUSH', s.key('list'), s.key('list'), timeout(r)];
    const keys = several(r, 2, () => s.key('list'));
    return ['BLMPOP', timeout(r), String(keys.length), ...keys, end(r), ...(r.chance(0.5) ? ['COUNT', count(r)] : [])];
  }),
];

// Random ACL DRYRUN steps, compared with redis-server like every generator: three users (made
// again from fixed rules by a SETUSER step, so a script may meet them missing) with read and
// write key patterns, channel patterns, selectors and a first-arg, asked about command lines
// over the shared key space: the command check, the keys the key specs find with the access
// each needs, and the channels. The users are never the default one, so the other generators'
// commands run as before.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

const USERS: Record<string, string[]> = {
  'gen-rw': ['reset', 'on', '+@all', '%R~k*', '%W~list*', '~hash*', 'resetchannels', '&c*'],
  'gen-sel': ['reset', 'on', '+@read', '+@write', '-@dangerous', '~set*', '(+get ~k* ~string*)', '(%W~zset* +set +lmove +zadd)'],
  'gen-cmd': ['reset', 'on', '+@all', '-@keyspace', '+del', 'allkeys', 'resetchannels', '&news', '-select', '+select|0'],
};

const user = (r: Rng) => r.pick([...Object.keys(USERS), 'nosuch']);

function line(r: Rng, s: KeySpace): string[] {
  const k = () => s.key();
  const lines: Array<() => string[]> = [
    () => ['GET', k()],
    () => ['SET', k(), s.value(), ...(r.chance(0.3) ? ['GET'] : [])],
    () => ['LMOVE', k(), k(), 'LEFT', 'RIGHT'],
    () => ['COPY', k(), k()],
    () => ['SORT', k(), ...(r.chance(0.5) ? ['STORE', k()] : [])],
    () => ['EVAL', 'return 1', '2', k(), k()],
    () => ['MSET', k(), '1', k(), '2'],
    () => ['DEL', k(), k()],
    () => ['PUBLISH', r.pick(['c1', 'news', 'other']), 'm'],
    () => ['SUBSCRIBE', r.pick(['c1', 'news']), r.pick(['c2', 'x'])],
    () => ['PSUBSCRIBE', r.pick(['c*', 'c1', '*'])],
    () => ['XREAD', 'STREAMS', k(), k(), '0', '0'],
    () => ['ZUNIONSTORE', k(), '2', k(), k()],
    () => ['BITOP', 'AND', k(), k(), k()],
    () => ['SELECT', r.pick(['0', '1'])],
    () => ['OBJECT', 'ENCODING', k()],
    () => ['RENAME', k(), k()],
    () => ['BITFIELD', k(), ...(r.chance(0.5) ? ['GET', 'u8', '0'] : ['SET', 'u8', '0', '1'])],
    () => ['HSET', k(), 'f', 'v'],
    () => ['ZADD', k(), '1', 'm'],
  ];
  return r.pick(lines)();
}

export const generators: StepGenerator[] = [
  {
    name: 'acl-setuser',
    weight: 1,
    next: (r) => {
      const name = r.pick(Object.keys(USERS));
      return ['ACL', 'SETUSER', name, ...USERS[name]!];
    },
  },
  { name: 'acl-dryrun', weight: 3, next: (r, s): Step => ['ACL', 'DRYRUN', user(r), ...line(r, s)] },
];

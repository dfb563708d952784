// SORT and SORT_RO, compared byte for byte with redis-server: numeric and ALPHA, BY weights in
// strings and hash fields, GET patterns, LIMIT edges, STORE, the "do not sort" BY, and errors.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'SORT a list: numeric, DESC, ALPHA, LIMIT edges, ties broken by the bytes',
    steps: cli`
      RPUSH l 3 1 2 10 1.5 -4 2
      SORT l
      SORT l DESC
      SORT l ALPHA
      SORT l ALPHA DESC
      SORT l LIMIT 1 3
      SORT l LIMIT -5 2
      SORT l LIMIT 2 -1
      SORT l LIMIT 0 0
      SORT l LIMIT 7 1
      SORT l LIMIT 100 5
      SORT l LIMIT 6 100 DESC
      SORT l LIMIT x 1
      SORT l LIMIT 1
      RPUSH t 02 2 2.0 " 2" +2
      SORT t
      SORT t DESC
      RPUSH bad 1 x
      SORT bad
      SORT bad ALPHA
      SORT_RO l DESC LIMIT 0 2
      SORT nokey
      SORT nokey STORE dst
    `,
  },
  {
    name: 'SORT BY weights and hash fields, GET patterns, the constant BY',
    steps: cli`
      RPUSH ids 3 1 2 4
      MSET w_1 30 w_2 10 w_3 20 name_1 one name_2 two name_3 three
      HSET h_1 f 5 n uno
      HSET h_2 f 7 n dos
      HSET h_3 f 6 n tres
      SORT ids BY w_*
      SORT ids BY w_* DESC
      SORT ids BY h_*->f
      SORT ids BY h_*->f GET h_*->n GET # GET name_*
      SORT ids BY w_* GET name_* GET nothing_* GET nostar
      SORT ids BY nosort
      SORT ids BY nosort DESC
      SORT ids BY nosort LIMIT 1 2
      SORT ids BY nosort DESC LIMIT 1 2
      SORT ids BY w_* LIMIT 0 2
      SORT ids BY name_* ALPHA
      SORT ids BY name_* ALPHA DESC GET name_*
      SORT ids BY h_*-> 
      SORT ids GET h_*->
      MSET w_4 abc
      SORT ids BY w_*
      SORT ids BY w_* ALPHA
      SORT ids GET #
    `,
  },
  {
    name: 'SORT sets and sorted sets, STORE, errors',
    steps: cli`
      SADD s 5 3 9 1
      SORT s
      SORT s BY nosort
      SORT s BY nosort STORE dst
      LRANGE dst 0 -1
      SADD sa banana apple cherry
      SORT sa ALPHA
      SORT sa ALPHA DESC LIMIT 0 2
      SORT sa
      SORT sa BY nosort STORE dst2 DESC
      LRANGE dst2 0 -1
      ZADD z 3 c 1 a 2 b
      SORT z ALPHA
      SORT z BY nosort
      SORT z BY nosort DESC
      SORT z BY nosort LIMIT 1 1
      SORT z BY nosort DESC LIMIT 1 5
      RPUSH nums 3 1 2
      SET dst x EX 100
      SORT nums STORE dst
      TTL dst
      LRANGE dst 0 -1
      SORT nums GET nostar_* STORE dst
      LRANGE dst 0 -1
      SORT nums LIMIT 5 5 STORE dst
      EXISTS dst
      SORT_RO nums STORE dst
      SORT nums BOGUS
      SORT nums STORE
      SORT nums BY
      SET str v
      SORT str
      HSET hh f v
      SORT hh
      SORT_RO hh
    `,
  },
  {
    name: 'SORT weights as strtod reads them',
    steps: cli`
      RPUSH ws a b c d e f g
      MSET ww_a 1e3 ww_b 0x10 ww_c inf ww_d -inf ww_e "  7" ww_f "" ww_g .5
      SORT ws BY ww_*
      SORT ws BY ww_* DESC
      MSET ww_a 1e400
      SORT ws BY ww_*
      MSET ww_a nan
      SORT ws BY ww_*
      MSET ww_a "7 "
      SORT ws BY ww_*
    `,
  },
  {
    name: 'COMMAND INFO and GETKEYS of SORT and SORT_RO',
    steps: [
      ...['sort', 'sort_ro'].map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
      ['COMMAND', 'GETKEYS', 'SORT', 'a', 'LIMIT', '0', '1', 'BY', 'w_*', 'STORE', 'b', 'GET', 'c'],
      ['COMMAND', 'GETKEYS', 'SORT_RO', 'a', 'GET', 'c'],
    ],
  },
];

// COMMAND GETKEYSANDFLAGS against redis-server: keys found by Redis 7.0's key specs (index,
// keyword, range, keynum), the commands whose flags vary with their arguments (SET GET,
// BITFIELD), and those Redis answers through its own key procedures (SORT, EVAL, XREADGROUP).
import type { DiffCase } from './case-types.js';

const gkf = (...line: string[]): string[] => ['COMMAND', 'GETKEYSANDFLAGS', ...line];

export const cases: DiffCase[] = [
  {
    name: 'COMMAND GETKEYSANDFLAGS: key specs and the flags of each key',
    steps: [
      gkf('set', 'k1', 'v1'),
      gkf('set', 'k1', 'v1', 'GET'),
      gkf('mset', 'k1', 'v1', 'k2', 'v2'),
      gkf('LMOVE', 'k1', 'k2', 'left', 'right'),
      gkf('sort', 'k1', 'store', 'k2'),
      gkf('sort', 'k1', 'by', 'k2'),
      gkf('zunionstore', 'd', '2', 'a', 'b'),
      gkf('zunionstore', 'd', '0', 'a'),
      gkf('xreadgroup', 'group', 'g', 'c', 'streams', 's1', 's2', '>', '>'),
      gkf('xread', 'count', '1', 'streams', 's1', '0'),
      gkf('eval', 'x', '1', 'k'),
      gkf('georadius', 'g', '1', '2', '3', 'km', 'store', 'd'),
      gkf('xgroup', 'create', 'key', 'g', '$'),
      gkf('memory', 'usage', 'key'),
      gkf('lcs', 'a', 'b'),
      gkf('bitfield', 'k', 'get', 'u8', '0'),
      gkf('bitfield', 'k', 'get', 'u8', '0', 'set', 'u8', '0', '1'),
      gkf('object', 'encoding', 'k'),
      gkf('getex', 'k'),
      gkf('lmpop', '2', 'a', 'b', 'left'),
      gkf('bitop', 'and', 'd', 'a', 'b'),
      gkf('rename', 'a', 'b'),
      gkf('get'),
      gkf('ping'),
      gkf('nosuch', 'a'),
      ['COMMAND', 'GETKEYSANDFLAGS'],
    ],
  },
];

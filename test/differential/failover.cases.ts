// FAILOVER's argument parsing and the errors of a primary without replicas, FAILOVER ABORT with
// nothing to abort, the PSYNC ... FAILOVER a primary refuses, and CLIENT PAUSE / UNPAUSE
// (what a single connection can see of them: the errors, a pause of writes that lets reads
// through, a zero timeout) compared with redis-server. The failover itself, between processes,
// is test/replication/failover.test.ts.
import type { DiffCase } from './case-types.js';

export const cases: DiffCase[] = [
  {
    name: 'FAILOVER argument errors, in the order Redis checks them',
    steps: [
      ['FAILOVER'],
      ['FAILOVER', 'ABORT'],
      ['failover', 'abort'],
      ['FAILOVER', 'ABORT', 'TIMEOUT', '10'],
      ['FAILOVER', 'TIMEOUT', '0'],
      ['FAILOVER', 'TIMEOUT', '-5'],
      ['FAILOVER', 'TIMEOUT', 'x'],
      ['FAILOVER', 'TIMEOUT', '10', 'TIMEOUT', '20'],
      ['FAILOVER', 'TIMEOUT'],
      ['FAILOVER', 'TO', 'host'],
      ['FAILOVER', 'TO', 'host', 'port'],
      ['FAILOVER', 'TO', 'host', '1', 'TO', 'other', '2'],
      ['FAILOVER', 'FORCE', 'FORCE'],
      ['FAILOVER', 'FORCE'],
      ['FAILOVER', 'FORCE', 'TIMEOUT', '100'],
      ['FAILOVER', 'TO', '127.0.0.1', '1', 'FORCE'],
      ['FAILOVER', 'TO', '127.0.0.1', '1', 'FORCE', 'TIMEOUT', '100'],
      ['FAILOVER', 'TO', '127.0.0.1', '1'],
      ['FAILOVER', 'BOGUS'],
      ['FAILOVER', 'TIMEOUT', '0', 'BOGUS'],
      ['FAILOVER', 'BOGUS', 'TIMEOUT', '0'],
      ['REPLICAOF', 'NO', 'ONE'],
    ],
  },
  {
    name: 'PSYNC ... FAILOVER sent to a primary',
    tcpOnly: true,
    steps: [['PSYNC', '?', '-1', 'FAILOVER'], ['PSYNC', 'abc', 'x', 'failover'], ['PING']],
  },
  {
    name: 'CLIENT PAUSE / UNPAUSE: errors, WRITE lets reads through, a zero timeout is over at once',
    steps: [
      ['CLIENT', 'PAUSE'],
      ['CLIENT', 'PAUSE', '10', 'READ'],
      ['CLIENT', 'PAUSE', 'x', 'READ'],
      ['CLIENT', 'PAUSE', 'x'],
      ['CLIENT', 'PAUSE', '-1'],
      ['CLIENT', 'PAUSE', '1', 'WRITE', 'extra'],
      ['CLIENT', 'UNPAUSE', 'extra'],
      ['CLIENT', 'UNPAUSE'],
      ['SET', 'k', 'v'],
      ['CLIENT', 'PAUSE', '60000', 'write'],
      ['GET', 'k'],
      ['EXISTS', 'k'],
      ['CLIENT', 'UNPAUSE'],
      ['SET', 'k', 'w'],
      ['CLIENT', 'PAUSE', '0', 'ALL'],
      ['GET', 'k'],
      ['CLIENT', 'PAUSE', '0'],
      ['INCR', 'n'],
    ],
  },
];

// The scripting commands compared byte for byte with redis-server 7.0: their errors with no
// scripts or libraries, FUNCTION LOAD's metadata errors, FUNCTION LIST / STATS / DUMP of one
// library (EVAL's scripts are in eval.cases.ts). Payloads to restore are binary and steps are
// sent as UTF-8 text, so FUNCTION RESTORE of libraries is compared in test/rdb/functions.test.ts.
import { cli } from './cli.js';
import type { DiffCase } from './case-types.js';
import type { Normaliser } from './normalize.js';

/** FUNCTION STATS: the running script and the field names; the engines map's content differs. */
const statsShape: Normaliser = (frame) => {
  const c = frame.children ?? [];
  return [frame.type, c.length, ...c.slice(0, 3).map((x) => x.raw.toString('latin1')), c[3]?.type].join('|');
};

const LIB_ONE =
  "#!lua name=one\nredis.register_function{function_name='f_one', description='the one', flags={'no-writes', 'allow-stale'}, callback=function(keys, args) return {keys[1], args[1]} end}\n";
export const cases: DiffCase[] = [
  {
    name: 'FUNCTION FLUSH / LIST / DUMP / RESTORE / DELETE / KILL / HELP with no libraries',
    steps: cli`
      FUNCTION FLUSH
      FUNCTION FLUSH ASYNC
      FUNCTION flush sync
      FUNCTION FLUSH BAD
      FUNCTION FLUSH SYNC x
      FUNCTION LIST
      FUNCTION LIST WITHCODE
      FUNCTION LIST LIBRARYNAME lib* WITHCODE
      FUNCTION LIST LIBRARYNAME
      FUNCTION LIST WITHCODE WITHCODE
      FUNCTION LIST BAD
      FUNCTION DUMP
      FUNCTION DUMP x
      FUNCTION RESTORE "bad payload"
      FUNCTION RESTORE ${'\x0a\x00\x5d\x9b\x5c\x40\x0f\x7f\xa2\xda'.replace(/\x5d/, '\x5e')}
      FUNCTION RESTORE x BADPOLICY
      FUNCTION RESTORE x FLUSH extra
      FUNCTION RESTORE
      FUNCTION DELETE lib
      FUNCTION DELETE
      FUNCTION KILL
      FUNCTION HELP
      FUNCTION NOSUCH
      FUNCTION
      FUNCTION STATS  => ${statsShape}
      FUNCTION STATS x
    `,
  },
  {
    // Steps are sent as UTF-8 text, so payloads (binary) are restored in test/rdb/functions.test.ts.
    name: 'FUNCTION LIST / STATS / DUMP with one library (an uncompressed payload: rdbcompression no)',
    steps: cli`
      FUNCTION FLUSH
      CONFIG SET rdbcompression no
      FUNCTION LOAD ${LIB_ONE}
      FUNCTION LIST
      FUNCTION LIST WITHCODE
      FUNCTION LIST LIBRARYNAME one*
      FUNCTION LIST LIBRARYNAME other WITHCODE
      FUNCTION LIST WITHCODE LIBRARYNAME ?ne
      FUNCTION STATS
      FUNCTION DUMP
      FCALL_RO f_one 1 k a
      FUNCTION DELETE one
      FUNCTION DELETE one
      CONFIG SET rdbcompression yes
    `,
  },
  {
    name: 'FUNCTION LOAD: option and metadata errors',
    steps: cli`
      FUNCTION LOAD
      FUNCTION LOAD BAD code
      FUNCTION LOAD REPLACE
      FUNCTION LOAD "return 1"
      FUNCTION LOAD "#!lua name=x"
      FUNCTION LOAD ${'#!lua\nreturn 1'}
      FUNCTION LOAD ${'#!lua name=a name=b\nreturn 1'}
      FUNCTION LOAD ${'#!lua foo=bar\nreturn 1'}
      FUNCTION LOAD ${'#!lua name=bad-name\nreturn 1'}
      FUNCTION LOAD REPLACE ${'#!nosuch name=lib\nreturn 1'}
    `,
  },
  {
    name: 'EVALSHA / FCALL of scripts and functions that do not exist, numkeys errors',
    steps: cli`
      EVALSHA abc 0
      EVALSHA ${'a'.repeat(40)} 0
      EVALSHA ${'a'.repeat(40)} 2 k
      EVALSHA ${'a'.repeat(40)} -1
      EVALSHA ${'a'.repeat(40)} x
      EVALSHA abc x
      EVALSHA_RO ${'a'.repeat(40)} 1 k
      FCALL f 0
      FCALL f x
      FCALL_RO f 1 k arg
      EVAL "return 1" 2 k
      EVAL "return 1" -1
      EVAL "return 1" x
      EVAL_RO "return 1" 5
      EVAL "return 1"
      FCALL f
    `,
  },
  {
    name: 'SCRIPT EXISTS / FLUSH / KILL / HELP with an empty script cache',
    steps: cli`
      SCRIPT EXISTS a b
      SCRIPT EXISTS
      SCRIPT FLUSH
      SCRIPT FLUSH ASYNC
      SCRIPT FLUSH BAD
      SCRIPT KILL
      SCRIPT HELP
      SCRIPT NOSUCH
    `,
  },
  {
    name: 'COMMAND INFO of the scripting commands',
    steps: [
      'eval evalsha eval_ro evalsha_ro fcall fcall_ro function script',
      'function|flush function|list function|stats function|dump function|restore function|delete function|kill function|load function|help',
      'script|flush script|exists script|kill script|help',
    ]
      .join(' ')
      .split(' ')
      .map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
  },
  {
    name: 'COMMAND GETKEYS of EVAL and FCALL',
    steps: cli`
      COMMAND GETKEYS EVAL "return 1" 2 a b c
      COMMAND GETKEYS FCALL f 1 a b
    `,
  },
];

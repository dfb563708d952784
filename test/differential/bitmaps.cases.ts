// SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP, compared byte for byte with redis-server, with
// random bitmaps and ranges in bytes and in bits.
import { cli } from './cli.js';
import { type DiffCase, Rng } from './case-types.js';

function randomBitmaps(seed: number, n: number): string[][] {
  const rng = new Rng(seed);
  const steps: string[][] = [];
  const index = (): string => String(rng.int(60) - 30);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < 12; k++) steps.push(['SETBIT', rng.pick(['a', 'b']), String(rng.int(200)), rng.pick(['0', '1'])]);
    steps.push(['BITCOUNT', 'a'], ['BITCOUNT', 'a', index(), index()], ['BITCOUNT', 'b', index(), index(), 'BIT']);
    for (const bit of ['0', '1']) {
      steps.push(['BITPOS', 'a', bit], ['BITPOS', 'b', bit, index()], ['BITPOS', 'a', bit, index(), index()]);
      steps.push(['BITPOS', 'b', bit, index(), index(), 'BIT'], ['BITPOS', 'a', bit, index(), index(), 'BYTE']);
    }
    steps.push(['BITOP', rng.pick(['AND', 'OR', 'XOR']), 'dest', 'a', 'b'], ['GET', 'dest'], ['BITOP', 'NOT', 'dest', 'a'], ['GET', 'dest']);
  }
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'SETBIT / GETBIT: values, growth, errors',
    steps: cli`
      SETBIT k 7 1
      GET k
      SETBIT k 7 1
      SETBIT k 7 0
      SETBIT k 100 1
      STRLEN k
      GETBIT k 100
      GETBIT k 99
      GETBIT k 100000
      GETBIT nokey 3
      SETBIT k -1 1
      SETBIT k x 1
      SETBIT k 1 2
      SETBIT k 1 -1
      SETBIT k 1 x
      SETBIT k 4294967296 1
      GETBIT k -1
      GETBIT k 4294967296
      SET t v EX 100
      SETBIT t 0 1
      TTL t
      HSET h f v
      SETBIT h 0 1
      GETBIT h 0
      SET n 1234
      GETBIT n 2
      SETBIT n 2 1
      GET n
    `,
  },
  {
    name: 'BITCOUNT and BITPOS: ranges in bytes and bits, missing keys, errors',
    steps: cli`
      SET s foobar
      BITCOUNT s
      BITCOUNT s 0 0
      BITCOUNT s 1 1
      BITCOUNT s 5 30 BIT
      BITCOUNT s -2 -1
      BITCOUNT s -1 -2
      BITCOUNT s 1
      BITCOUNT s 0 1 BOGUS
      BITCOUNT s x 1
      BITCOUNT nokey x y
      BITCOUNT nokey
      SET z ""
      BITCOUNT z
      BITPOS z 0
      BITPOS z 1
      SET f "\xff\xf0\x00"
      BITPOS f 0
      BITPOS f 1 2
      BITPOS f 0 0 0
      BITPOS f 0 0 -1
      BITPOS f 1 7 15 BIT
      BITPOS f 0 7 15 BIT
      BITPOS f 1 20 BIT
      BITPOS f 0 1 1 BOGUS
      SET ones "\xff\xff"
      BITPOS ones 0
      BITPOS ones 0 0
      BITPOS ones 0 0 -1
      BITPOS ones 1 -1
      BITPOS nokey 0
      BITPOS nokey 1
      BITPOS nokey 0 x y
      BITPOS f 2
      BITPOS f x
      BITPOS f 1 x
      BITPOS f 1 0 1 BIT extra
      HSET h f v
      BITCOUNT h
      BITPOS h 1
    `,
  },
  {
    name: 'BITOP AND/OR/XOR/NOT: lengths, missing keys, empty result deletes, errors',
    steps: cli`
      SET a "\xf0\x0f\xaa"
      SET b "\x3c"
      BITOP AND d a b
      GET d
      BITOP OR d a b nokey
      GET d
      BITOP XOR d a b
      GET d
      BITOP NOT d a
      GET d
      BITOP NOT d a b
      BITOP NAND d a
      SET d x
      BITOP AND d nokey nokey2
      EXISTS d
      SET t v EX 100
      BITOP OR t a
      TTL t
      HSET h f v
      BITOP AND d a h
      BITOP OR h a
      TYPE h
    `,
  },
  { name: 'random bitmaps: SETBIT then BITCOUNT / BITPOS / BITOP', steps: randomBitmaps(11, 20) },
  {
    name: 'COMMAND INFO of the bitmap commands',
    steps: ['setbit', 'getbit', 'bitcount', 'bitpos', 'bitop'].map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
  },
];

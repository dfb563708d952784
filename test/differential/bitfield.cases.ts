// BITFIELD and BITFIELD_RO, compared byte for byte with redis-server: every width at odd offsets,
// `#` offsets, the three OVERFLOW types at both limits, and random operation lists.
import { cli } from './cli.js';
import { type DiffCase, Rng } from './case-types.js';

function randomOps(seed: number, n: number): string[][] {
  const rng = new Rng(seed);
  const steps: string[][] = [];
  for (let i = 0; i < n; i++) {
    const argv = ['BITFIELD', 'bf'];
    for (let k = rng.int(4) + 1; k > 0; k--) {
      if (rng.chance(0.2)) argv.push('OVERFLOW', rng.pick(['WRAP', 'SAT', 'FAIL']));
      const signed = rng.chance(0.5);
      const type = `${signed ? 'i' : 'u'}${rng.int(signed ? 64 : 63) + 1}`;
      const offset = rng.chance(0.2) ? `#${rng.int(5)}` : String(rng.int(100));
      const value = rng.pick(['0', '1', '-1', '127', '-128', '255', String(rng.int(1e9) - 5e8), '9223372036854775807', '-9223372036854775808']);
      const sub = rng.pick(['GET', 'SET', 'INCRBY']);
      argv.push(sub, type, offset, ...(sub === 'GET' ? [] : [value]));
    }
    steps.push(argv);
    if (rng.chance(0.3)) steps.push(['GET', 'bf']);
  }
  steps.push(['GET', 'bf']);
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'BITFIELD GET/SET/INCRBY: widths, offsets, # offsets, replies',
    steps: cli`
      BITFIELD bf SET u8 0 255 GET u8 0 GET i8 0
      BITFIELD bf SET i5 3 -7 GET i5 3 GET u5 3
      BITFIELD bf SET u63 1 9223372036854775807 GET u63 1
      BITFIELD bf SET i64 #1 -9223372036854775808 GET i64 #1 GET i64 64
      BITFIELD bf INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1 INCRBY u2 100 1
      BITFIELD bf INCRBY i64 0 9223372036854775807 INCRBY i64 0 1
      BITFIELD bf GET u1 100000
      GET bf
      BITFIELD nokey GET u8 0 GET i64 7
      BITFIELD nokey
      EXISTS nokey
      BITFIELD_RO bf GET u8 0 GET i3 5
      BITFIELD_RO bf GET u8 0 SET u8 0 1
      BITFIELD_RO bf INCRBY u8 0 1
    `,
  },
  {
    name: 'BITFIELD OVERFLOW WRAP/SAT/FAIL at both limits, signed and unsigned',
    steps: cli`
      BITFIELD o SET u8 0 250 OVERFLOW WRAP INCRBY u8 0 10
      BITFIELD o SET u8 0 250 OVERFLOW SAT INCRBY u8 0 10 INCRBY u8 0 -300
      BITFIELD o SET u8 0 250 OVERFLOW FAIL INCRBY u8 0 10 GET u8 0
      BITFIELD o SET i8 0 120 OVERFLOW WRAP INCRBY i8 0 10
      BITFIELD o SET i8 0 -120 OVERFLOW SAT INCRBY i8 0 -10 INCRBY i8 0 300
      BITFIELD o SET i8 0 -120 OVERFLOW FAIL INCRBY i8 0 -10 GET i8 0
      BITFIELD o OVERFLOW SAT SET u8 0 300 GET u8 0 SET i8 0 -300 GET i8 0
      BITFIELD o OVERFLOW FAIL SET u8 0 300 SET u8 0 -1 SET i4 0 8
      BITFIELD o OVERFLOW WRAP SET u8 0 -1 GET u8 0 SET i4 0 8 GET i4 0
      BITFIELD o OVERFLOW SAT INCRBY i64 0 9223372036854775807 INCRBY i64 0 1 INCRBY i64 0 -9223372036854775808
      BITFIELD o OVERFLOW FAIL SET i64 0 -9223372036854775808 INCRBY i64 0 -1
      BITFIELD o OVERFLOW SAT INCRBY u63 0 9223372036854775807 INCRBY u63 0 5 INCRBY u63 0 -9223372036854775808
      BITFIELD fresh OVERFLOW FAIL INCRBY u8 800 300
      GET fresh
      GET o
    `,
  },
  {
    name: 'BITFIELD errors: types, offsets, OVERFLOW, syntax, WRONGTYPE',
    steps: cli`
      BITFIELD e GET u64 0
      BITFIELD e GET i65 0
      BITFIELD e GET x8 0
      BITFIELD e GET i0 0
      BITFIELD e GET u 0
      BITFIELD e GET u8 -1
      BITFIELD e GET u8 #-1
      BITFIELD e GET u8 x
      BITFIELD e GET u8 4294967296
      BITFIELD e SET u8 0 x
      BITFIELD e SET u8 0
      BITFIELD e OVERFLOW BOGUS GET u8 0
      BITFIELD e OVERFLOW
      BITFIELD e BOGUS u8 0
      BITFIELD e GET u8
      BITFIELD e GET u8 0 SET
      HSET h f v
      BITFIELD h GET u8 0
      BITFIELD h SET u8 0 1
      BITFIELD_RO h GET u8 0
      BITFIELD_RO h SET u8 0 1
      EXISTS e
    `,
  },
  { name: 'BITFIELD random operation lists', steps: randomOps(5, 120) },
  {
    name: 'COMMAND INFO of BITFIELD and BITFIELD_RO',
    steps: ['bitfield', 'bitfield_ro'].map((name) => ({ argv: ['COMMAND', 'INFO', name], mask: 'commandInfoHead' as const })),
  },
];

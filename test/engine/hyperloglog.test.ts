// HllWriter's register sets against two models: a dense reference (one number per register,
// each the largest value set) for what the HLL holds, and a plain transcription of Redis's
// hllSparseSet on an array of bytes for the exact sparse bytes, promotion to dense included.
// The writer changes a buffer of its own in place; the strings it hands out must never change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  count,
  denseRegisters,
  emptyHll,
  HLL_DENSE,
  HLL_DENSE_SIZE,
  HLL_HDR_SIZE,
  HLL_REGISTERS,
  HLL_SPARSE,
  HllWriter,
  mergeInto,
  murmurHash64A,
  patLen,
  toDense,
} from '../../src/engine/hyperloglog.js';

/** hllSparseSet / hllDenseSet on a copy, one array splice at a time: slow and plain. */
function modelSet(hll: Buffer, index: number, value: number, maxSparseBytes: number): { hll: Buffer; result: 0 | 1 | -1 } {
  const promote = (): { hll: Buffer; result: 1 | -1 } => {
    const dense = toDense(hll);
    if (dense === null) return { hll, result: -1 };
    return { hll: setDense(Buffer.from(dense), index, value), result: 1 };
  };
  if (hll[4] === HLL_DENSE) {
    const registers = new Uint8Array(HLL_REGISTERS);
    mergeInto(registers, hll);
    if (value <= registers[index]!) return { hll, result: 0 };
    return { hll: setDense(Buffer.from(hll), index, value), result: 1 };
  }
  if (value > 32) return promote();
  const ops = [...hll.subarray(HLL_HDR_SIZE)];
  const spanAt = (p: number): [span: number, oplen: number] => {
    const b = ops[p]!;
    if ((b & 0xc0) === 0) return [(b & 0x3f) + 1, 1];
    if (b & 0x80) return [(b & 3) + 1, 1];
    return [(((b & 0x3f) << 8) | (ops[p + 1] ?? 0)) + 1, 2];
  };
  let p = 0;
  let first = 0;
  let prev = -1;
  for (; p < ops.length; ) {
    const [span, oplen] = spanAt(p);
    if (index < first + span) break;
    prev = p;
    p += oplen;
    first += span;
  }
  if (p >= ops.length) return { hll, result: -1 };
  const b = ops[p]!;
  const [span, oldLen] = spanAt(p);
  const val = (v: number, len: number): number => 0x80 | ((v - 1) << 2) | (len - 1);
  const zeros = (len: number): number[] => (len > 64 ? [0x40 | ((len - 1) >> 8), (len - 1) & 0xff] : [len - 1]);
  const isVal = (b & 0x80) !== 0;
  const current = isVal ? ((b >> 2) & 0x1f) + 1 : 0;
  if (isVal && current >= value) return { hll, result: 0 };
  const seq: number[] = [];
  if (index > first) seq.push(...(isVal ? [val(current, index - first)] : zeros(index - first)));
  seq.push(val(value, 1));
  if (index < first + span - 1) seq.push(...(isVal ? [val(current, first + span - 1 - index)] : zeros(first + span - 1 - index)));
  if (seq.length > oldLen && HLL_HDR_SIZE + ops.length + seq.length - oldLen > maxSparseBytes) return promote();
  ops.splice(p, oldLen, ...seq);
  let q = prev >= 0 ? prev : 0;
  for (let scan = 5; q < ops.length && scan-- > 0; ) {
    const op = ops[q]!;
    if ((op & 0xc0) === 0x40) q += 2;
    else if ((op & 0xc0) === 0) q++;
    else {
      const next = ops[q + 1];
      if (next !== undefined && next & 0x80 && (next & 0x7c) === (op & 0x7c) && (op & 3) + (next & 3) + 2 <= 4) {
        ops.splice(q, 2, val(((op >> 2) & 0x1f) + 1, (op & 3) + (next & 3) + 2));
        continue;
      }
      q++;
    }
  }
  const out = Buffer.concat([hll.subarray(0, HLL_HDR_SIZE), Buffer.from(ops)]);
  out[15] = out[15]! | 0x80;
  return { hll: out, result: 1 };
}

function setDense(dense: Buffer, index: number, value: number): Buffer {
  const bit = index * 6;
  for (let i = 0; i < 6; i++) {
    const at = HLL_HDR_SIZE + ((bit + i) >> 3);
    const mask = 1 << ((bit + i) & 7);
    dense[at] = value & (1 << i) ? dense[at]! | mask : dense[at]! & ~mask;
  }
  return dense;
}

/** Sets clustered around a few places (runs of VAL opcodes to split and merge) or anywhere. */
const setArb = fc.oneof(
  fc.record({ index: fc.integer({ min: 0, max: HLL_REGISTERS - 1 }), value: fc.integer({ min: 1, max: 6 }) }),
  fc.record({
    index: fc.constantFrom(0, 1, 63, 64, 65, 8191, 16380).chain((base) => fc.integer({ min: base, max: Math.min(base + 12, HLL_REGISTERS - 1) })),
    value: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 40 })),
  }),
);
/** The sets, cut into commands: each command has a writer of its own over what the last stored. */
const commandsArb = fc.array(fc.array(setArb, { minLength: 1, maxLength: 60 }), { minLength: 1, maxLength: 8 });

test('sparse and dense register sets match the dense reference and Redis sparse bytes exactly; stored strings never change', () => {
  fc.assert(
    fc.property(commandsArb, fc.constantFrom(3000, 300, 60, 20), (commands, maxSparseBytes) => {
      const reference = new Uint8Array(HLL_REGISTERS);
      let model = emptyHll();
      let stored: Buffer | undefined;
      const handedOut: Array<[Buffer, Buffer]> = [];
      for (const sets of commands) {
        const writer = stored === undefined ? HllWriter.empty() : new HllWriter(stored);
        for (const { index, value } of sets) {
          const expected = modelSet(model, index, value, maxSparseBytes);
          model = expected.hll;
          assert.equal(writer.set(index, value, maxSparseBytes), expected.result);
          reference[index] = Math.max(reference[index]!, value);
        }
        stored = writer.value();
        handedOut.push([stored, Buffer.from(stored)]);
        assert.deepEqual(stored, model);
        assert.equal(stored[4], model.length === HLL_DENSE_SIZE && model[4] === HLL_DENSE ? HLL_DENSE : HLL_SPARSE);
        const registers = new Uint8Array(HLL_REGISTERS);
        assert.ok(mergeInto(registers, stored));
        assert.ok(Buffer.from(registers).equals(reference), 'registers differ from the dense reference');
        if (stored[4] === HLL_SPARSE) assert.ok(stored.length <= Math.max(maxSparseBytes, emptyHll().length));
        assert.notEqual(count(stored), null);
      }
      for (const [value, copy] of handedOut) assert.deepEqual(value, copy, 'a stored string changed in place');
    }),
    { numRuns: 300 },
  );
});

test('a sparse HLL past hll-sparse-max-bytes, or with a register over 32, becomes dense', () => {
  const writer = HllWriter.empty();
  assert.equal(writer.set(100, 33, 3000), 1);
  assert.equal(writer.encoding, HLL_DENSE);
  assert.equal(writer.value().length, HLL_DENSE_SIZE);
  // Every other register set to 1 needs a VAL and a ZERO each: far past 100 bytes.
  const small = HllWriter.empty();
  let index = 0;
  while (small.encoding === HLL_SPARSE) {
    assert.equal(small.set(index, 1, 100), 1);
    index += 2;
  }
  assert.ok(index < 100);
  assert.deepEqual(
    denseRegisters(small.value()).slice(0, index + 2),
    Array.from({ length: index + 2 }, (_, i) => (i % 2 === 0 && i < index ? 1 : 0)),
  );
});

test('a sparse form that covers too few registers is corrupt: -1, and nothing is set', () => {
  const cut = Buffer.from(emptyHll().subarray(0, HLL_HDR_SIZE + 2));
  cut[HLL_HDR_SIZE] = 0x40 | ((8192 - 1) >> 8);
  cut[HLL_HDR_SIZE + 1] = (8192 - 1) & 0xff;
  const before = Buffer.from(cut);
  const writer = new HllWriter(cut);
  assert.equal(writer.set(9000, 1, 3000), -1);
  assert.equal(writer.changed, false);
  assert.equal(writer.set(10, 1, 3000), 1);
  assert.equal(writer.set(9000, 40, 3000), -1);
  assert.deepEqual(cut, before);
  assert.equal(writer.value().toString('hex'), `${before.subarray(0, 15).toString('hex')}8009805ff4`);
});

/** MurmurHash64A in BigInt arithmetic, read straight from Redis's C: the reference. */
function murmurReference(data: Buffer, seed: number): bigint {
  const M = 0xc6a4a7935bd1e995n;
  const mul = (a: bigint, b: bigint): bigint => (a * b) & 0xffffffffffffffffn;
  let h = BigInt(seed) ^ mul(BigInt(data.length), M);
  const whole = data.length - (data.length & 7);
  for (let i = 0; i < whole; i += 8) {
    let k = mul(data.readBigUInt64LE(i), M);
    k ^= k >> 47n;
    h = mul(h ^ mul(k, M), M);
  }
  if (data.length & 7) {
    for (let i = (data.length & 7) - 1; i >= 0; i--) h ^= BigInt(data[whole + i]!) << BigInt(8 * i);
    h = mul(h, M);
  }
  h ^= h >> 47n;
  h = mul(h, M);
  return h ^ (h >> 47n);
}

test('MurmurHash64A and the register/run of an element match the BigInt reference', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 40 }), fc.constantFrom(0xadc83b19, 0, 0xffffffff), (bytes, seed) => {
      const data = Buffer.from(bytes);
      const h = murmurReference(data, seed);
      assert.equal(murmurHash64A(data, seed), h);
      if (seed !== 0xadc83b19) return;
      let rest = (h >> 14n) | (1n << 50n);
      let run = 1;
      for (; (rest & 1n) === 0n; rest >>= 1n) run++;
      assert.deepEqual(patLen(data), { index: Number(h & 16383n), count: run });
    }),
    { numRuns: 2000 },
  );
});

// canonicalInt64 / canonicalIntNumber: Redis's rule for a string stored as an integer (string2ll
// accepts it and it prints back the same), against that definition on texts made mostly of
// digits, around 15-20 characters, where the two parsers (numbers, then BigInt) meet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { canonicalInt64, canonicalIntNumber } from '../../src/engine/canonical-int.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The definition: an optional "-", digits, printing back as itself, within int64. */
function reference(text: string): bigint | null {
  if (!/^-?[0-9]+$/.test(text)) return null;
  const v = BigInt(text);
  if (v < INT64_MIN || v > INT64_MAX || v.toString() !== text) return null;
  return v;
}

test('canonicalInt64 and canonicalIntNumber follow the definition', () => {
  const char = fc.constantFrom('0', '1', '5', '9', '-', 'a', ' ', 'x');
  const text = fc.oneof(
    fc.array(char, { maxLength: 22 }).map((c) => c.join('')),
    fc.bigInt({ min: INT64_MIN - 10n, max: INT64_MAX + 10n }).map(String),
    fc.constantFrom('9223372036854775807', '-9223372036854775808', '9223372036854775808', '0', '-0', '007', 'mxcwlh92coxLfrnnWxLU', '1234567890123456x'),
  );
  fc.assert(
    fc.property(text, fc.nat(3), (t, pad) => {
      // At an offset of a larger buffer, as entries' values are.
      const b = Buffer.from(`${'#'.repeat(pad)}${t}#`, 'latin1');
      const want = reference(t);
      assert.equal(canonicalInt64(b, pad, pad + t.length), want, t);
      const n = canonicalIntNumber(b, pad, pad + t.length);
      if (n !== null) assert.equal(BigInt(n), want, t);
      else if (want !== null) assert.ok(t.replace('-', '').length > 15, `${t} is a number of at most 15 digits`);
    }),
    { numRuns: 2000 },
  );
});

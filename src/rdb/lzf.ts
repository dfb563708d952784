// LZF decompression (liblzf's lzf_decompress), for the compressed strings Redis writes into RDB
// files and DUMP payloads when rdbcompression is yes (its default). sluice writes strings
// uncompressed, so only this direction is needed.

/**
 * Decompresses `input` into exactly `outLength` bytes; null when the data is malformed. Into
 * `into` (from its start) when given and large enough, a view of it returned.
 */
export function lzfDecompress(input: Buffer, outLength: number, into?: Buffer): Buffer | null {
  const out = into !== undefined && into.length >= outLength ? into.subarray(0, outLength) : Buffer.allocUnsafe(outLength);
  let ip = 0;
  let op = 0;
  while (ip < input.length) {
    const ctrl = input[ip++]!;
    if (ctrl < 32) {
      // A literal run of ctrl + 1 bytes.
      const run = ctrl + 1;
      if (op + run > outLength || ip + run > input.length) return null;
      // At most 32 bytes: a loop costs less than Buffer.copy's native call.
      for (let end = ip + run; ip < end; ) out[op++] = input[ip++]!;
      continue;
    }
    // A back reference: length (ctrl >> 5) + 2, extended by a byte when it is 7.
    let len = ctrl >> 5;
    if (len === 7) {
      if (ip >= input.length) return null;
      len += input[ip++]!;
    }
    if (ip >= input.length) return null;
    let ref = op - ((ctrl & 0x1f) << 8) - 1 - input[ip++]!;
    len += 2;
    if (ref < 0 || op + len > outLength) return null;
    // Byte by byte: the reference may overlap what is being written.
    while (len-- > 0) out[op++] = out[ref++]!;
  }
  return op === outLength ? out : null;
}

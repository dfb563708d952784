// CRC64 over long inputs (a whole RDB: a full sync sums it on both ends) as a small WebAssembly
// function, slicing by 8 as crc64.ts does in JavaScript, but on 64-bit words: one i64 load, eight
// table loads and xors per 8 bytes, where JavaScript needs the state and every table split into
// 32-bit halves. crc64.ts stays the definition and handles short inputs; it hands this module
// its tables. The module is built here, byte by byte, from the text below (no build step, no
// binary blob): WebAssembly is part of Node.js.
//
//   (module
//     (memory (export "mem") 3)        ;; [0, 16 KiB) tables T0..T7; [64 KiB, 192 KiB) the input
//     (func (export "crc") (param $p i32) (param $n i32) (param $crc i64) (result i64)
//       (local $end i32) (local $x i64)
//       (local.set $end (i32.add (local.get $p) (i32.and (local.get $n) (i32.const -8))))
//       (block $words (loop $next
//         (br_if $words (i32.ge_u (local.get $p) (local.get $end)))
//         (local.set $x (i64.xor (local.get $crc) (i64.load (local.get $p))))
//         ;; byte j of x through table 7 - j (T_k[b]: the CRC of b followed by k zero bytes)
//         (local.set $crc (i64.xor (T7 (byte 0 of $x)) ... (T0 (byte 7 of $x))))
//         (local.set $p (i32.add (local.get $p) (i32.const 8)))
//         (br $next)))
//       (local.set $end (i32.add (local.get $end) (i32.and (local.get $n) (i32.const 7))))
//       (block $bytes (loop $next
//         (br_if $bytes (i32.ge_u (local.get $p) (local.get $end)))
//         (local.set $crc (i64.xor (T0 (i64.xor (local.get $crc) (i64.load8_u (local.get $p))))
//                                  (i64.shr_u (local.get $crc) (i64.const 8))))
//         (local.set $p (i32.add (local.get $p) (i32.const 1)))
//         (br $next)))
//       (local.get $crc)))

const TABLE_BYTES = 8 * 256 * 8;
/** Where the input is copied in the module's memory, and how much of it goes per call. */
const INPUT_AT = 65536;
const INPUT_WINDOW = 2 * 65536;

// Opcodes used above.
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I64_CONST = 0x42;
const I32_AND = 0x71;
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_GE_U = 0x4f;
const I32_WRAP_I64 = 0xa7;
const I64_XOR = 0x85;
const I64_SHR_U = 0x88;
const I64_LOAD = 0x29;
const I64_LOAD8_U = 0x31;
const BLOCK = 0x02;
const LOOP = 0x03;
const BR = 0x0c;
const BR_IF = 0x0d;
const END = 0x0b;
const EMPTY_BLOCK = 0x40;
const I32 = 0x7f;
const I64 = 0x7e;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];

/** (T_k (i32 index of a byte)): the table entry's i64, with the index already on the stack. */
function tableLoad(k: number): number[] {
  return [I32_CONST, ...sleb(255), I32_AND, I32_CONST, 3, I32_SHL, I64_LOAD, 3, ...uleb(k * 2048)];
}

function functionBody(): number[] {
  const [p, n, crc, end, x] = [0, 1, 2, 3, 4];
  const code: number[] = [
    LOCAL_GET, p, LOCAL_GET, n, I32_CONST, ...sleb(-8), I32_AND, I32_ADD, LOCAL_SET, end,
    BLOCK, EMPTY_BLOCK, LOOP, EMPTY_BLOCK,
    LOCAL_GET, p, LOCAL_GET, end, I32_GE_U, BR_IF, 1,
    LOCAL_GET, crc, LOCAL_GET, p, I64_LOAD, 3, 0, I64_XOR, LOCAL_SET, x,
  ];
  for (let j = 0; j < 8; j++) {
    code.push(LOCAL_GET, x);
    if (j > 0) code.push(I64_CONST, ...sleb(8 * j), I64_SHR_U);
    code.push(I32_WRAP_I64, ...tableLoad(7 - j));
    if (j > 0) code.push(I64_XOR);
  }
  code.push(
    LOCAL_SET, crc,
    LOCAL_GET, p, I32_CONST, 8, I32_ADD, LOCAL_SET, p,
    BR, 0, END, END,
    LOCAL_GET, end, LOCAL_GET, n, I32_CONST, 7, I32_AND, I32_ADD, LOCAL_SET, end,
    BLOCK, EMPTY_BLOCK, LOOP, EMPTY_BLOCK,
    LOCAL_GET, p, LOCAL_GET, end, I32_GE_U, BR_IF, 1,
    LOCAL_GET, crc, LOCAL_GET, p, I64_LOAD8_U, 0, 0, I64_XOR, I32_WRAP_I64, ...tableLoad(0),
    LOCAL_GET, crc, I64_CONST, 8, I64_SHR_U, I64_XOR, LOCAL_SET, crc,
    LOCAL_GET, p, I32_CONST, 1, I32_ADD, LOCAL_SET, p,
    BR, 0, END, END,
    LOCAL_GET, crc,
    END,
  );
  // Locals after the parameters: one i32 ($end), one i64 ($x).
  const body = [2, 1, I32, 1, I64, ...code];
  return [...uleb(body.length), ...body];
}

function moduleBytes(): Uint8Array {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 3, I32, I32, I64, 1, I64]), // type 0: (i32, i32, i64) -> i64
    ...section(3, [1, 0]), // function 0 of type 0
    ...section(5, [1, 0x00, 3]), // one memory of 3 pages, no maximum
    ...section(7, [2, ...name('crc'), 0x00, 0, ...name('mem'), 0x02, 0]),
    ...section(10, [1, ...functionBody()]),
  ]);
}

/**
 * crc64(data, crc) by the module, given crc64.ts's tables as low and high halves
 * (lo[k * 256 + b], hi[k * 256 + b]); null when WebAssembly is not available here.
 */
export function wasmCrc64(lo: Uint32Array, hi: Uint32Array): ((data: Uint8Array, crc: bigint) => bigint) | null {
  let exports: WebAssembly.Exports;
  try {
    exports = new WebAssembly.Instance(new WebAssembly.Module(moduleBytes() as Uint8Array<ArrayBuffer>)).exports;
  } catch {
    return null;
  }
  const memory = exports['mem'] as WebAssembly.Memory;
  const crc = exports['crc'] as (p: number, n: number, crc: bigint) => bigint;
  // WebAssembly memory is little-endian on every host.
  const tables = new DataView(memory.buffer, 0, TABLE_BYTES);
  for (let i = 0; i < 8 * 256; i++) {
    tables.setUint32(i * 8, lo[i]!, true);
    tables.setUint32(i * 8 + 4, hi[i]!, true);
  }
  const input = new Uint8Array(memory.buffer, INPUT_AT, INPUT_WINDOW);
  return (data, sum) => {
    for (let at = 0; at < data.length; at += INPUT_WINDOW) {
      const piece = data.subarray(at, Math.min(data.length, at + INPUT_WINDOW));
      input.set(piece);
      sum = BigInt.asUintN(64, crc(INPUT_AT, piece.length, BigInt.asIntN(64, sum)));
    }
    return sum;
  };
}

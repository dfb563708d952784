// Function libraries in RDB form (rdbSaveFunctions / rdbFunctionLoad), shared by dump.rdb and
// FUNCTION DUMP/RESTORE payloads: each library is RDB_OPCODE_FUNCTION2 followed by its code
// (shebang included) as an RDB string. The 7.0 release candidates' RDB_OPCODE_FUNCTION held
// the name, the engine, an optional description and the code apart; Redis still reads those,
// rebuilding the code as "#!<engine> name=<name>\n<code>", and so does sluice.
import * as T from './constants.js';
import { RdbFormatError } from './constants.js';
import type { RdbReader } from './rdb-reader.js';
import type { RdbWriter } from './rdb-writer.js';

/** rdbSaveFunctions: one FUNCTION2 entry per library. */
export function writeFunctionEntries(w: RdbWriter, codes: readonly Buffer[]): void {
  for (const code of codes) w.byte(T.OPCODE_FUNCTION2).string(code);
}

/** One library's code after its opcode (FUNCTION2 or the pre-GA FUNCTION); RdbFormatError with Redis's log text. */
export function readFunctionEntry(r: RdbReader, type: number): Buffer {
  const read = (what: string): Buffer => {
    try {
      return r.string();
    } catch (err) {
      if (err instanceof RdbFormatError) throw new RdbFormatError(what);
      throw err;
    }
  };
  if (type === T.OPCODE_FUNCTION2) return read('Failed loading library payload');
  const name = read('Failed loading library name');
  const engine = read('Failed loading engine name');
  let hasDescription: number;
  try {
    hasDescription = r.len();
  } catch (err) {
    if (err instanceof RdbFormatError) throw new RdbFormatError('Failed loading library description indicator');
    throw err;
  }
  if (hasDescription !== 0) read('Failed loading library description');
  const blob = read('Failed loading library blob');
  return Buffer.concat([Buffer.from('#!'), engine, Buffer.from(' name='), name, Buffer.from('\n'), blob]);
}

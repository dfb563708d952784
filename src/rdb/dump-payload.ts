// DUMP's payload (cluster.c's createDumpPayload / verifyDumpPayload): the value in RDB form
// (type byte + payload), then the RDB version as 2 bytes little-endian, then the CRC64 of all
// that, 8 bytes little-endian.
import type { StoredValue } from '../engine/keyspace.js';
import { RDB_VERSION } from './constants.js';
import { crc64 } from './crc64.js';
import { RdbReader } from './rdb-reader.js';
import { RdbWriter } from './rdb-writer.js';
import { readValue, readValueType, writeValue } from './value-codec.js';
import { writeFunctionEntries } from './function-entries.js';

export function dumpPayload(value: StoredValue): Buffer {
  const w = new RdbWriter();
  writeValue(w, value);
  return Buffer.from(w.byte(RDB_VERSION & 0xff).byte(RDB_VERSION >> 8).finishWithChecksum());
}

/** verifyDumpPayload: a known RDB version and a matching checksum. */
export function verifyDumpPayload(payload: Buffer): boolean {
  if (payload.length < 10) return false;
  const footer = payload.length - 10;
  const version = payload[footer]! | (payload[footer + 1]! << 8);
  if (version > RDB_VERSION) return false;
  return crc64(payload.subarray(0, payload.length - 8)) === payload.readBigUInt64LE(payload.length - 8);
}

/** The value of a verified payload; RdbFormatError when it does not decode. */
export function parseDumpPayload(payload: Buffer): StoredValue {
  const r = new RdbReader(payload, payload.length - 10);
  const value = readValue(r, readValueType(r));
  return value;
}

/** FUNCTION DUMP's payload (functionDumpCommand): the libraries' FUNCTION2 entries, then the same footer. */
export function functionsPayload(codes: readonly Buffer[]): Buffer {
  const w = new RdbWriter();
  writeFunctionEntries(w, codes);
  return Buffer.from(w.byte(RDB_VERSION & 0xff).byte(RDB_VERSION >> 8).finishWithChecksum());
}

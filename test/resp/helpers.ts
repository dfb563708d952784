// Shared helpers for the RESP tests: splitting byte streams into chunks and draining parsers.
import fc from 'fast-check';
import { ProtocolError, RequestParser, type ParserLimits } from '../../src/resp/parser.js';

/** Cuts `bytes` at the given offsets (any order, duplicates allowed) into fresh chunks. */
export function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    if (p > prev) chunks.push(Buffer.from(bytes.subarray(prev, p)));
    prev = p;
  }
  return chunks;
}

/** Arbitrary cut offsets for a buffer of up to `max` bytes. */
export const cutsArb = (max: number) => fc.array(fc.integer({ min: 0, max }), { maxLength: 12 });

export interface ParseOutcome {
  commands: string[][];
  /** The ProtocolError message, if one was thrown. */
  error?: string;
  bufferedBytes: number;
}

/**
 * Feeds chunks to a fresh RequestParser, draining after each, and stops at the first
 * ProtocolError. Arguments are read as latin1 only at the end, so an argument that a later
 * push corrupted would show up as a mismatch.
 */
export function parseChunks(chunks: Buffer[], limits?: ParserLimits, authRequired = false): ParseOutcome {
  const parser = new RequestParser(limits);
  parser.authRequired = authRequired;
  const argvs: Buffer[][] = [];
  let error: string | undefined;
  try {
    for (const chunk of chunks) {
      parser.push(chunk);
      for (let argv = parser.next(); argv !== null; argv = parser.next()) argvs.push(argv);
    }
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    error = e.message;
  }
  const commands = argvs.map((argv) => argv.map((a) => a.toString('latin1')));
  return error === undefined
    ? { commands, bufferedBytes: parser.bufferedBytes }
    : { commands, error, bufferedBytes: parser.bufferedBytes };
}

export function latin1(s: string): Buffer {
  return Buffer.from(s, 'latin1');
}

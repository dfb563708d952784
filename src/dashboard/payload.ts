// Shows an entry's fields as the broker wrote them (src/broker/README.md): `payload` decoded
// with the JSON codec, or the reason it does not decode; entries of other writers (no
// `payload` field) are shown by their fields alone.
import { decodeEntry, Fields, jsonCodec } from '../broker/codec.js';

export interface DecodedPayload {
  /** The decoded payload; absent when the entry has no `payload` field or it did not decode. */
  payload?: unknown;
  /** Why the `payload` field did not decode (the worker would dead-letter it for this). */
  payloadError?: string;
}

export function decodePayload(fields: Record<string, string>): DecodedPayload {
  if (fields[Fields.payload] === undefined) return {};
  try {
    return { payload: decodeEntry(jsonCodec, fields) };
  } catch (err) {
    return { payloadError: (err as Error).message };
  }
}

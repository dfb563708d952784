// Payload encoding and the stream entry layout, chosen so any language can produce and consume:
//
//   payload       the encoded message (UTF-8 JSON text by default)
//   content-type  the codec's media type, e.g. "application/json"
//   key           optional partition / ordering key given to Producer.add
//   traceparent   optional W3C trace context of the producing span (tracing.ts)
//   job-id        the job's id (jobs on, the default): its record is PREFIX:job:ID (jobs/keys.ts)
//   opts          optional per-job options, JSON (jobs/job-options.ts)
//
// Other fields are ignored by the worker and preserved by the dead-letter stream.
export interface Codec {
  /** Written to the `content-type` field; an entry with another content type is malformed. */
  readonly contentType: string;
  encode(payload: unknown): string;
  /** Throws on input it cannot decode; the worker then dead-letters the entry. */
  decode(data: string): unknown;
}

export const jsonCodec: Codec = {
  contentType: 'application/json',
  encode(payload: unknown): string {
    const text = JSON.stringify(payload);
    if (text === undefined) throw new TypeError('payload is not JSON-serialisable');
    return text;
  },
  decode(data: string): unknown {
    return JSON.parse(data);
  },
};

export const Fields = {
  payload: 'payload',
  contentType: 'content-type',
  key: 'key',
  jobId: 'job-id',
  opts: 'opts',
} as const;

/** The field/value list of a new entry. */
export function encodeEntry(codec: Codec, payload: unknown, key?: string): string[] {
  const fields: string[] = [Fields.payload, codec.encode(payload), Fields.contentType, codec.contentType];
  if (key !== undefined) fields.push(Fields.key, key);
  return fields;
}

export class MalformedEntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedEntryError';
  }
}

/** Decodes an entry's payload; throws MalformedEntryError when it is missing or undecodable. */
export function decodeEntry(codec: Codec, fields: Record<string, string>): unknown {
  const data = fields[Fields.payload];
  if (data === undefined) throw new MalformedEntryError('malformed entry: no payload field');
  const type = fields[Fields.contentType];
  if (type !== undefined && type !== codec.contentType) {
    throw new MalformedEntryError(`malformed entry: content-type ${type}, expected ${codec.contentType}`);
  }
  try {
    return codec.decode(data);
  } catch (err) {
    throw new MalformedEntryError(`malformed entry: ${(err as Error).message}`);
  }
}

// Dead letters: entries that failed maxDeliveries times or did not decode. Each dead-letter
// entry carries its origin and the original fields verbatim, so it can be re-added as it was:
//
//   dlq-source-stream  stream it came from      dlq-source-id  its id there
//   dlq-group          consumer group           dlq-consumer   consumer that gave up on it
//   dlq-deliveries     delivery count           dlq-error      last error message
//   dlq-failed-at      unix ms                  ...            the original fields (payload, ...)
import type { Connection, Value } from '../client/connection.js';
import { defaultDeadLetterStream } from './partition.js';
import { parseEntries, type StreamEntry } from './replies.js';

const PREFIX = 'dlq-';

export function deadLetterFields(d: { entry: StreamEntry; stream: string; group: string; consumer: string; deliveries: number; error: string }): string[] {
  return [
    `${PREFIX}source-stream`, d.stream,
    `${PREFIX}source-id`, d.entry.id,
    `${PREFIX}group`, d.group,
    `${PREFIX}consumer`, d.consumer,
    `${PREFIX}deliveries`, String(d.deliveries),
    `${PREFIX}error`, d.error,
    `${PREFIX}failed-at`, String(Date.now()),
    ...d.entry.pairs,
  ];
}

export interface DeadLetter {
  /** Id in the dead-letter stream. */
  id: string;
  sourceStream: string;
  sourceId: string;
  group: string;
  consumer: string;
  deliveries: number;
  error: string;
  failedAt: number;
  /** The original entry's fields, as they were. */
  fields: Record<string, string>;
  /** The original field/value pairs, in order. */
  pairs: string[];
}

function toDeadLetter(e: StreamEntry): DeadLetter | null {
  if (e.fields === null) return null;
  const meta: Record<string, string> = {};
  const pairs: string[] = [];
  for (let i = 0; i + 1 < e.pairs.length; i += 2) {
    const f = e.pairs[i]!;
    const v = e.pairs[i + 1]!;
    if (f.startsWith(PREFIX) && i < 14) meta[f.slice(PREFIX.length)] = v;
    else pairs.push(f, v);
  }
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
  return {
    id: e.id,
    sourceStream: meta['source-stream'] ?? '',
    sourceId: meta['source-id'] ?? '',
    group: meta['group'] ?? '',
    consumer: meta['consumer'] ?? '',
    deliveries: Number(meta['deliveries'] ?? 0),
    error: meta['error'] ?? '',
    failedAt: Number(meta['failed-at'] ?? 0),
    fields,
    pairs,
  };
}

export class DeadLetters {
  readonly stream: string;

  /** `source` is the stream the workers consume; the dead-letter stream defaults to `${source}:dead`. */
  constructor(
    private readonly conn: Connection,
    options: { source: string; deadLetterStream?: string },
  ) {
    this.stream = options.deadLetterStream ?? defaultDeadLetterStream(options.source);
  }

  async count(): Promise<number> {
    return Number(await this.conn.call('XLEN', this.stream));
  }

  /** Oldest first; `after` is an exclusive id to page from. */
  async list(options: { count?: number; after?: string } = {}): Promise<DeadLetter[]> {
    const start = options.after === undefined ? '-' : `(${options.after}`;
    const raw = await this.conn.call('XRANGE', this.stream, start, '+', 'COUNT', options.count ?? 100);
    return parseEntries(raw).map(toDeadLetter).filter((d): d is DeadLetter => d !== null);
  }

  /**
   * Re-adds dead letters to their source stream (new ids) and deletes each from the dead-letter
   * stream only after its re-add succeeded. Without ids, retries all. Resolves to the new ids.
   */
  async retry(ids?: string[]): Promise<string[]> {
    const letters = await this.select(ids);
    const added: string[] = [];
    for (const d of letters) {
      const newId = String(await this.conn.call('XADD', d.sourceStream, '*', ...d.pairs));
      await this.conn.call('XDEL', this.stream, d.id);
      added.push(newId);
    }
    return added;
  }

  /** One dead letter by its id in the dead-letter stream, or null when there is none. */
  async get(id: string): Promise<DeadLetter | null> {
    return (await this.select([id]))[0] ?? null;
  }

  /** Deletes dead letters (all without ids); resolves to how many were removed. */
  async purge(ids?: string[]): Promise<number> {
    if (ids === undefined) {
      const n = await this.count();
      await this.conn.call('DEL', this.stream);
      return n;
    }
    if (ids.length === 0) return 0;
    return Number(await this.conn.call('XDEL', this.stream, ...ids));
  }

  private async select(ids?: string[]): Promise<DeadLetter[]> {
    if (ids === undefined) {
      const all: DeadLetter[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await this.list({ count: 500, after });
        all.push(...page);
        if (page.length < 500) return all;
        after = page[page.length - 1]!.id;
      }
    }
    const out: DeadLetter[] = [];
    for (const id of ids) {
      const raw = (await this.conn.call('XRANGE', this.stream, id, id)) as Value[];
      const d = parseEntries(raw).map(toDeadLetter)[0];
      if (d) out.push(d);
    }
    return out;
  }
}

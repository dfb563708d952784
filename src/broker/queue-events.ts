// QueueEvents: the events of a queue (jobs/events.ts), for any process: one blocking XREAD over
// the events stream of each partition, emitting each event with its id. A listener that
// stops and starts again with `lastEventId` (its `lastEventIds` when it stopped) resumes after
// the last event it saw: none missed (unless the capped stream dropped them meanwhile), none
// seen twice.
//
//   const events = new QueueEvents(conn, { stream: 'orders' });
//   events.on('completed', ({ jobId, returnvalue }, id) => …);
//   await events.start();
import { EventEmitter } from 'node:events';
import type { BlockingConnection, Connection, Value } from '../client/connection.js';
import { type Codec, jsonCodec } from './codec.js';
import { QUEUE_EVENT_NAMES, type QueueEventName } from './jobs/events.js';
import { jobKeys } from './jobs/keys.js';
import { partitionStreams } from './partition.js';
import { errorMessage } from './replies.js';

/** What every event carries. */
export interface QueueEventBase {
  /** The (partition) stream whose job it is. */
  stream: string;
  /** The job's id (absent for drained). */
  jobId: string;
  /** The event's fields as stored. */
  fields: Record<string, string>;
}

/** The events and what each carries (besides QueueEventBase); the listener's second argument is the event's id. */
export interface QueueEventPayloads<R = unknown> {
  added: QueueEventBase;
  delayed: QueueEventBase & { delay: number; due: number };
  waiting: QueueEventBase;
  active: QueueEventBase & { consumer: string; attemptsMade: number };
  progress: QueueEventBase & { data: unknown };
  completed: QueueEventBase & { returnvalue: R | undefined };
  failed: QueueEventBase & { failedReason: string; attemptsMade: number };
  retrying: QueueEventBase & { delay: number; attemptsMade: number };
  deadLettered: QueueEventBase & { failedReason: string; attemptsMade: number };
  claimed: QueueEventBase & { consumer: string; attemptsMade: number };
  removed: QueueEventBase & { prev: string };
  promoted: QueueEventBase;
  drained: Omit<QueueEventBase, 'jobId'>;
}

export type QueueEventsMap<R = unknown> = { [K in QueueEventName]: [event: QueueEventPayloads<R>[K], id: string] } & { error: [error: Error] };

export interface QueueEventsOptions {
  stream: string;
  /** The Producer's and Worker's `partitions`: one events stream per partition. */
  partitions?: number;
  /**
   * Where to start: `'$'` (default: events from now on), `'0'` (all the stream still holds), an
   * event id, or per stream the ids of `lastEventIds` (resume after a restart).
   */
  lastEventId?: string | Record<string, string>;
  /** Longest XREAD BLOCK (default 1000 ms; close() interrupts it). */
  blockMs?: number;
  /** Decodes `returnvalue` (default JSON, as the Worker's). */
  codec?: Codec;
}

export class QueueEvents<R = unknown> extends EventEmitter<QueueEventsMap<R>> {
  readonly streams: string[];
  private readonly cursors = new Map<string, string>();
  private link: BlockingConnection | null = null;
  private started: Promise<void> | null = null;
  private loop: Promise<void> | null = null;
  private closing = false;
  private readonly codec: Codec;

  constructor(
    private readonly conn: Connection,
    private readonly options: QueueEventsOptions,
  ) {
    super();
    this.streams = options.partitions === undefined ? [options.stream] : partitionStreams(options.stream, options.partitions);
    this.codec = options.codec ?? jsonCodec;
  }

  /** Per stream, the id of the last event emitted (or the start position): pass it back as lastEventId. */
  get lastEventIds(): Record<string, string> {
    return Object.fromEntries(this.cursors);
  }

  /** Starts listening; resolves once the start position is fixed (events after it are emitted). */
  start(): Promise<void> {
    this.started ??= (async () => {
      const from = this.options.lastEventId ?? '$';
      for (const stream of this.streams) {
        const given = typeof from === 'string' ? from : (from[stream] ?? '$');
        this.cursors.set(stream, given === '$' ? await lastId(this.conn, jobKeys(stream).events) : given);
      }
      this.link = await this.conn.duplicate();
      this.loop = this.read(this.link);
    })();
    return this.started;
  }

  /** Stops listening (the read in progress is interrupted). */
  async close(): Promise<void> {
    this.closing = true;
    await this.started?.catch(() => {});
    // Interrupt until the loop has ended: a read sent just before may reach the server after
    // the interrupt (CLIENT UNBLOCK goes on another connection) and would block for blockMs.
    while (this.link !== null && this.loop !== null) {
      await this.link.interrupt().catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([this.loop.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(r, 20, false)))]);
      clearTimeout(timer);
      if (ended) break;
    }
    await this.loop;
    await this.link?.close().catch(() => {});
  }

  private async read(link: BlockingConnection): Promise<void> {
    let failures = 0;
    while (!this.closing) {
      const keys = this.streams.map((s) => jobKeys(s).events);
      try {
        const reply = (await link.call('XREAD', 'COUNT', 1000, 'BLOCK', this.options.blockMs ?? 1000, 'STREAMS', ...keys, ...this.streams.map((s) => this.cursors.get(s)!))) as Value[] | null;
        failures = 0;
        if (reply === null) continue;
        for (const [key, entries] of reply as Array<[string, Array<[string, Value[]]>]>) {
          const stream = this.streams[keys.indexOf(String(key))]!;
          for (const [id, list] of entries) {
            this.cursors.set(stream, String(id));
            if (!this.closing) this.dispatch(stream, String(id), list.map(String));
          }
        }
      } catch (err) {
        if (this.closing) break;
        this.emit('error', new Error(`QueueEvents: ${errorMessage(err)}`));
        failures++;
        await new Promise((r) => setTimeout(r, Math.min(2000, 20 * 2 ** Math.min(failures, 7))));
      }
    }
  }

  private dispatch(stream: string, id: string, pairs: string[]): void {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < pairs.length; i += 2) fields[pairs[i]!] = pairs[i + 1]!;
    const name = fields['event'] as QueueEventName;
    if (!QUEUE_EVENT_NAMES.includes(name)) return;
    const event: Record<string, unknown> = { stream, jobId: fields['jobId'], fields };
    if (name === 'drained') delete event['jobId'];
    for (const n of ['delay', 'due', 'attemptsMade'] as const) if (fields[n] !== undefined) event[n] = Number(fields[n]);
    for (const s of ['consumer', 'failedReason', 'prev'] as const) if (fields[s] !== undefined) event[s] = fields[s];
    if (name === 'completed') event['returnvalue'] = decodeResult(this.codec, fields['returnvalue']);
    if (name === 'progress') event['data'] = parseJson(fields['data']);
    try {
      (this.emit as (e: string, ...a: unknown[]) => boolean)(name, event, id);
    } catch (err) {
      // A listener threw: report it, keep listening.
      if (name !== ('error' as string)) this.emit('error', err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/** The id of a stream's last entry, or 0-0 when it is empty or missing. */
export async function lastId(conn: Connection, key: string): Promise<string> {
  const last = (await conn.call('XREVRANGE', key, '+', '-', 'COUNT', 1)) as Value[][];
  return last.length === 0 ? '0-0' : String(last[0]![0]);
}

/** A stored result: '' is a handler that returned undefined. */
export function decodeResult<R>(codec: Codec, text: string | undefined): R | undefined {
  if (text === undefined || text === '') return undefined;
  try {
    return codec.decode(text) as R;
  } catch {
    return undefined;
  }
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

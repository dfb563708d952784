// Consumer groups as Redis 7.0's t_stream.c models them (streamCG, streamConsumer, streamNACK):
// a group has a last delivered id, an entries_read counter for lag, a PEL of delivered but
// unacknowledged ids, and consumers each holding their own slice of that PEL. Every pending
// entry is shared by the group PEL and its owner's PEL, as in Redis.
//
// This module knows nothing of RESP: command handlers (src/commands/stream/) turn
// its results into replies and propagated commands.
import { Buffer } from 'node:buffer';
import type { EntryRefs } from './entry-refs.js';
import { IdleIndex } from './idle-index.js';
import { IdOrderedMap } from './pel.js';
import { compareIds, incrementId, isZeroId, MAX_ID, MIN_ID, type StreamId } from './stream-id.js';

/** Redis's SCG_INVALID_ENTRIES_READ: the group's counter is unknown (XINFO shows nil). */
export const INVALID_ENTRIES_READ = -1n;

/** One entry as the stream returns it: fields are flat name, value, name, value ... */
export interface GroupStreamEntry {
  readonly id: StreamId;
  readonly fields: Buffer[];
}

/**
 * What the group logic needs from a stream (src/engine/stream.ts's Stream satisfies it).
 * Declared here so that this file depends only on the stream's public API.
 */
export interface StreamView {
  readonly length: number;
  readonly lastId: StreamId;
  readonly maxDeletedId: StreamId;
  readonly entriesAdded: bigint;
  /** The first and last live entries' ids (Redis's first_id and streamLastValidID). */
  firstLiveId(): StreamId | undefined;
  lastLiveId(): StreamId | undefined;
  get(id: StreamId): Buffer[] | null | undefined;
  range(start: StreamId, end: StreamId, count: number, reverse: boolean): GroupStreamEntry[];
}

/** A StreamView that also finds entries without decoding them (for deliverNew's reply). */
export interface LocatingStreamView extends StreamView {
  rangeRefs(start: StreamId, end: StreamId, count: number, reverse: boolean): EntryRefs;
}

/** A delivered, unacknowledged entry (streamNACK). */
export interface PendingEntry {
  readonly id: StreamId;
  consumer: Consumer;
  /** Last delivery, ms since the epoch. */
  deliveryTime: number;
  deliveryCount: number;
  /** Bumped at every change of deliveryTime (for the group's IdleIndex). */
  version: number;
}

export class Consumer {
  /** The name as a latin1 string: the key of ConsumerGroup.consumers, sorts as bytes. */
  readonly key: string;
  /** Last time the consumer tried to read or claim (XINFO "idle", "seen-time"). */
  seenTime: number;
  /** Last time it actually got entries, -1 for never (Redis 7.2's "inactive", "active-time"). */
  activeTime = -1;
  readonly pel = new IdOrderedMap<PendingEntry>();

  constructor(
    readonly name: Buffer,
    now: number,
    /** The group this consumer belongs to. */
    readonly group: ConsumerGroup,
  ) {
    this.key = name.toString('latin1');
    this.seenTime = now;
  }
}

export class ConsumerGroup {
  readonly key: string;
  readonly pel = new IdOrderedMap<PendingEntry>();
  readonly consumers = new Map<string, Consumer>();
  /**
   * Owner of the entries released by XNACK (Redis 8.8's "NACK zone": consumer NULL, shown as
   * "" by XPENDING). Not in `consumers`: it is no consumer of XINFO CONSUMERS and reads no
   * history; claiming an entry from it moves it to a real consumer as usual.
   */
  readonly unowned: Consumer = new Consumer(Buffer.alloc(0), 0, this);
  /** The PEL by delivery time, for claiming the longest-idle entries first. */
  readonly byDeliveryTime = new IdleIndex<PendingEntry>(
    (nack) => this.pel.get(nack.id) === nack,
    () => [...this.pel.entries()].map(([, nack]) => nack),
  );

  constructor(
    readonly name: Buffer,
    public lastId: StreamId,
    /** Logical number of entries read (INVALID_ENTRIES_READ when unknown). */
    public entriesRead: bigint = INVALID_ENTRIES_READ,
  ) {
    this.key = name.toString('latin1');
  }

  consumer(name: Buffer | string): Consumer | undefined {
    return this.consumers.get(typeof name === 'string' ? name : name.toString('latin1'));
  }

  /** streamCreateConsumer: undefined when the consumer already exists. */
  createConsumer(name: Buffer, now: number): Consumer | undefined {
    const key = name.toString('latin1');
    if (this.consumers.has(key)) return undefined;
    const consumer = new Consumer(Buffer.from(name), now, this);
    this.consumers.set(key, consumer);
    return consumer;
  }

  /** The consumer, created when missing; `created` tells which happened. */
  ensureConsumer(name: Buffer, now: number): { consumer: Consumer; created: boolean } {
    const existing = this.consumer(name);
    if (existing !== undefined) return { consumer: existing, created: false };
    return { consumer: this.createConsumer(name, now)!, created: true };
  }

  /** streamDelConsumer: drops the consumer and its pending entries; returns how many. */
  deleteConsumer(consumer: Consumer): number {
    const pending = consumer.pel.size;
    for (const [id] of consumer.pel.entries()) this.pel.delete(id);
    consumer.pel.clear();
    this.consumers.delete(consumer.key);
    return pending;
  }

  /** Consumers in Redis's order (the rax: byte order of names). */
  sortedConsumers(): Consumer[] {
    return [...this.consumers.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** XACK of one id: true when it was pending. */
  ack(id: StreamId): boolean {
    const nack = this.pel.delete(id);
    if (nack === undefined) return false;
    nack.consumer.pel.delete(id);
    return true;
  }

  /**
   * Makes `consumer` the owner of a pending id, creating the entry when absent, with the
   * given delivery time and count. Returns the entry.
   */
  assign(id: StreamId, consumer: Consumer, deliveryTime: number, deliveryCount: number): PendingEntry {
    let nack = this.pel.get(id);
    if (nack === undefined) {
      nack = { id, consumer, deliveryTime, deliveryCount, version: 0 };
      this.pel.set(id, nack);
      consumer.pel.set(id, nack);
    } else if (nack.consumer !== consumer) {
      nack.consumer.pel.delete(id);
      nack.consumer = consumer;
      consumer.pel.set(id, nack);
    }
    nack.deliveryCount = deliveryCount;
    this.retime(nack, deliveryTime);
    return nack;
  }

  /** Sets a pending entry's delivery time, keeping the delivery-time index in step. */
  retime(nack: PendingEntry, deliveryTime: number): void {
    nack.deliveryTime = deliveryTime;
    this.byDeliveryTime.touch(nack, this.pel.size);
  }
}

/** XNACK's delivery time: 0, so any min-idle-time claims the entry at once. */
export const RELEASED_DELIVERY_TIME = 0;

/**
 * XNACK of one pending id: the entry stays in the group's PEL, unowned, with delivery time 0
 * and the given count. Returns false when the id is not pending in the group.
 */
export function releasePending(g: ConsumerGroup, id: StreamId, deliveryCount: (old: number) => number): boolean {
  const nack = g.pel.get(id);
  if (nack === undefined) return false;
  g.assign(id, g.unowned, RELEASED_DELIVERY_TIME, deliveryCount(nack.deliveryCount));
  return true;
}

// --- lag and entries_read (streamRangeHasTombstones, streamEstimateDistance..., streamCGLag) ---

/** Redis's s->first_id. Callers looping over one unchanged stream pass it in once. */
function firstId(s: StreamView): StreamId {
  return s.firstLiveId() ?? MIN_ID;
}

/** True when [start, end] may contain a deleted entry (only max_deleted_entry_id is known). */
export function rangeHasTombstones(
  s: StreamView,
  start: StreamId | null,
  end: StreamId | null,
  first: StreamId = firstId(s),
): boolean {
  if (s.length === 0 || isZeroId(s.maxDeletedId)) return false;
  if (compareIds(first, s.maxDeletedId) > 0) return false;
  const from = start ?? MIN_ID;
  const to = end ?? MAX_ID;
  return compareIds(from, s.maxDeletedId) <= 0 && compareIds(s.maxDeletedId, to) <= 0;
}

/**
 * The logical read counter of `id` (its distance from the first entry ever added), or
 * INVALID_ENTRIES_READ when it cannot be known (an id inside a fragmented stream, or future).
 */
export function estimateDistanceFromFirstEverEntry(s: StreamView, id: StreamId, first: StreamId = firstId(s)): bigint {
  if (s.entriesAdded === 0n) return 0n;
  if (s.length === 0 && compareIds(id, s.lastId) < 1) return s.entriesAdded;
  const cmpLast = compareIds(id, s.lastId);
  if (cmpLast === 0) return s.entriesAdded;
  if (cmpLast > 0) return INVALID_ENTRIES_READ;
  const cmpFirst = compareIds(id, first);
  if (isZeroId(s.maxDeletedId) || compareIds(s.maxDeletedId, first) < 0) {
    if (cmpFirst < 0) return s.entriesAdded - BigInt(s.length);
    if (cmpFirst === 0) return s.entriesAdded - BigInt(s.length) + 1n;
  }
  return INVALID_ENTRIES_READ;
}

/** The group's lag (entries not yet delivered), or null when it cannot be computed. */
export function computeGroupLag(s: StreamView, g: ConsumerGroup): bigint | null {
  if (s.entriesAdded === 0n) return 0n;
  if (g.entriesRead !== INVALID_ENTRIES_READ && !rangeHasTombstones(s, g.lastId, null)) {
    return s.entriesAdded - g.entriesRead;
  }
  const read = estimateDistanceFromFirstEverEntry(s, g.lastId);
  return read === INVALID_ENTRIES_READ ? null : s.entriesAdded - read;
}

// --- XREADGROUP (streamReplyWithRange with a group, streamReplyWithRangeFromConsumerPEL) ---

/** True when XREADGROUP ">" has something to deliver now (the stream has ids past last_id). */
export function hasNewEntries(s: StreamView, g: ConsumerGroup): boolean {
  if (s.length === 0) return false;
  const last = s.lastLiveId();
  return last !== undefined && compareIds(last, g.lastId) > 0;
}

export interface Delivery {
  /** The delivered entries, located in their nodes (the reply is written from their bytes). */
  entries: EntryRefs;
  /** The pending entries created or reassigned, in delivery order (for XCLAIM propagation). */
  pending: PendingEntry[];
  /** The group's last id right after each of `pending` was delivered (its LASTID). */
  lastIds: StreamId[];
}

/**
 * Delivers up to `count` (0 = all) entries after the group's last id to `consumer`, moving the
 * group's last id and entries_read, and (unless NOACK) adding them to the PELs with delivery
 * count 1, taking over ids another consumer had pending.
 */
export function deliverNew(
  s: LocatingStreamView,
  g: ConsumerGroup,
  consumer: Consumer,
  count: number,
  noack: boolean,
  now: number,
): Delivery {
  const start = incrementId(g.lastId) ?? MIN_ID;
  const entries = s.rangeRefs(start, MAX_ID, count, false);
  const pending: PendingEntry[] = [];
  const lastIds: StreamId[] = [];
  const first = firstId(s);
  for (let i = 0; i < entries.length; i++) {
    const id = entries.id(i);
    if (compareIds(id, g.lastId) > 0) {
      if (g.entriesRead !== INVALID_ENTRIES_READ && !rangeHasTombstones(s, id, null, first)) {
        g.entriesRead++;
      } else if (s.entriesAdded !== 0n) {
        g.entriesRead = estimateDistanceFromFirstEverEntry(s, id, first);
      }
      g.lastId = id;
    }
    if (!noack) {
      pending.push(g.assign(id, consumer, now, 1));
      lastIds.push(g.lastId);
    }
  }
  if (entries.length > 0) consumer.activeTime = now;
  return { entries, pending, lastIds };
}

/** An entry of a consumer's history: fields null when the entry was deleted meanwhile. */
export interface HistoryEntry {
  id: StreamId;
  fields: Buffer[] | null;
}

/**
 * XREADGROUP with an explicit id: the consumer's own pending entries after `after`, up to
 * `count` (0 = all). Entries still in the stream count as delivered again.
 */
export function readHistory(
  s: StreamView,
  consumer: Consumer,
  after: StreamId,
  count: number,
  now: number,
): HistoryEntry[] {
  // XREADGROUP treats MAX_ID as ">", so `after` is below it; ?? only mirrors streamIncrID's wrap.
  const start = incrementId(after) ?? MIN_ID;
  const out: HistoryEntry[] = [];
  for (const [id, nack] of consumer.pel.range(start)) {
    if (count > 0 && out.length >= count) break;
    const fields = s.get(id) ?? null;
    if (fields !== null) {
      nack.deliveryCount++;
      consumer.group.retime(nack, now);
    }
    out.push({ id, fields });
  }
  return out;
}

// XCLAIM and XAUTOCLAIM as Redis 7.0's xclaimCommand / xautoclaimCommand: ownership changes
// in a group's PEL. Ids whose entries were deleted from the stream are dropped from the PEL.
// Each change is reported as a ClaimEffect so the command layer can propagate it as an
// XCLAIM with explicit TIME/RETRYCOUNT (streamPropagateXCLAIM), in the order Redis does.
import { type Consumer, type ConsumerGroup, type PendingEntry, type StreamView } from './consumer-group.js';
import { incrementId, type StreamId } from './stream-id.js';

/** One PEL change, as it must be propagated: the entry's state right after the change. */
export interface ClaimEffect {
  id: StreamId;
  /** The owner after the change (for a dropped id: the owner it had). */
  consumer: Buffer;
  deliveryTime: number;
  deliveryCount: number;
  /** True when the id was dropped because its entry no longer exists. */
  dropped: boolean;
}

function effect(nack: PendingEntry, dropped: boolean): ClaimEffect {
  return {
    id: nack.id,
    consumer: nack.consumer.name,
    deliveryTime: nack.deliveryTime,
    deliveryCount: nack.deliveryCount,
    dropped,
  };
}

function dropPending(g: ConsumerGroup, nack: PendingEntry): void {
  g.pel.delete(nack.id);
  nack.consumer.pel.delete(nack.id);
}

export interface ClaimOptions {
  /** Only entries idle at least this long are claimed (0: any). */
  minIdle: number;
  /** The new delivery time, already validated (XCLAIM IDLE/TIME, else now). */
  deliveryTime: number;
  /** RETRYCOUNT, or -1 to increment (unless justId). */
  retryCount: number;
  force: boolean;
  justId: boolean;
  now: number;
}

export interface ClaimResult {
  /** Claimed ids in argument order (an id given twice appears twice). */
  claimed: StreamId[];
  effects: ClaimEffect[];
  /** The claiming consumer when it was created by this call. */
  createdConsumer: Consumer | null;
}

/** XCLAIM's claiming loop over already parsed ids. */
export function claim(
  s: StreamView,
  g: ConsumerGroup,
  consumerName: Buffer,
  ids: StreamId[],
  opts: ClaimOptions,
): ClaimResult {
  const result: ClaimResult = { claimed: [], effects: [], createdConsumer: null };
  let consumer: Consumer | undefined;
  for (const id of ids) {
    let nack = g.pel.get(id);
    if (s.get(id) == null) {
      if (nack !== undefined) {
        result.effects.push(effect(nack, true));
        dropPending(g, nack);
      }
      continue;
    }
    // FORCE creates the PEL entry (used by replication/AOF); its idle time is not checked.
    let forced = false;
    if (nack === undefined) {
      if (!opts.force) continue;
      forced = true;
    } else if (opts.minIdle > 0 && opts.now - nack.deliveryTime < opts.minIdle) {
      continue;
    }
    if (consumer === undefined) {
      const found = g.ensureConsumer(consumerName, opts.now);
      consumer = found.consumer;
      if (found.created) result.createdConsumer = consumer;
      else consumer.seenTime = opts.now;
    }
    // A forced entry starts with delivery count 1 (streamCreateNACK), then counts as usual.
    const previousCount = forced ? 1 : nack!.deliveryCount;
    let count = previousCount;
    if (opts.retryCount >= 0) count = opts.retryCount;
    else if (!opts.justId) count = previousCount + 1;
    nack = g.assign(id, consumer, opts.deliveryTime, count);
    consumer.activeTime = opts.now;
    result.claimed.push(id);
    result.effects.push(effect(nack, false));
  }
  return result;
}

export interface AutoClaimResult {
  /** Where the next call should start, 0-0 when the scan reached the end of the PEL. */
  cursor: StreamId | null;
  claimed: StreamId[];
  /** Ids dropped from the PEL because their entries were deleted. */
  deleted: StreamId[];
  effects: ClaimEffect[];
  createdConsumer: Consumer | null;
}

/**
 * XAUTOCLAIM: scans the PEL from `start`, examining at most count*10 entries, claiming idle
 * ones and dropping deleted ones until `count` of those happened.
 */
export function autoClaim(
  s: StreamView,
  g: ConsumerGroup,
  consumerName: Buffer,
  start: StreamId,
  minIdle: number,
  count: number,
  justId: boolean,
  now: number,
): AutoClaimResult {
  const result: AutoClaimResult = { cursor: null, claimed: [], deleted: [], effects: [], createdConsumer: null };
  let attempts = count * 10;
  let remaining = count;
  let consumer: Consumer | undefined;
  let at: StreamId | undefined = start;
  // `at` is the next id to examine; the PEL is re-sought each step because it changes.
  while (attempts > 0 && remaining > 0 && at !== undefined) {
    const next = g.pel.ceiling(at);
    if (next === undefined) {
      at = undefined;
      break;
    }
    attempts--;
    const [id, nack] = next;
    at = incrementId(id);
    if (s.get(id) == null) {
      result.effects.push(effect(nack, true));
      dropPending(g, nack);
      result.deleted.push(id);
      remaining--;
      continue;
    }
    if (minIdle > 0 && now - nack.deliveryTime < minIdle) continue;
    if (consumer === undefined) {
      const found = g.ensureConsumer(consumerName, now);
      consumer = found.consumer;
      if (found.created) result.createdConsumer = consumer;
      else consumer.seenTime = now;
    }
    g.assign(id, consumer, now, justId ? nack.deliveryCount : nack.deliveryCount + 1);
    consumer.activeTime = now;
    result.claimed.push(id);
    result.effects.push(effect(nack, false));
    remaining--;
  }
  // The cursor is the first PEL id after the last one examined.
  const following = at === undefined ? undefined : g.pel.ceiling(at);
  result.cursor = following === undefined ? null : following[0];
  return result;
}

/** One entry XREADGROUP ... CLAIM took over: its state before the claim, for the reply. */
export interface IdleClaim {
  id: StreamId;
  fields: Buffer[];
  /** ms since the previous delivery (XNACKed entries: since the epoch). */
  idle: number;
  /** Deliveries before this one. */
  previousDeliveries: number;
}

/**
 * XREADGROUP CLAIM (Redis 8.4): the group's pending entries idle at least `minIdle`, longest
 * idle first (so XNACKed ones, with delivery time 0, lead), up to `count` (0 = all), move to
 * `consumer` as a new delivery. Entries deleted from the stream are dropped from the PEL on
 * the way, as XAUTOCLAIM does. The group's delivery-time index makes this O(k log P).
 */
export function claimIdle(
  s: StreamView,
  g: ConsumerGroup,
  consumer: Consumer,
  minIdle: number,
  count: number,
  now: number,
): { claimed: IdleClaim[]; effects: ClaimEffect[] } {
  const claimed: IdleClaim[] = [];
  const effects: ClaimEffect[] = [];
  // Entries claimed here are re-timed to `now`; with minIdle 0 they come up again in this
  // walk: set them aside, as a snapshot of the due entries would.
  const retaken = new Set<PendingEntry>();
  const deferred: PendingEntry[] = [];
  while (count === 0 || claimed.length < count) {
    const nack = g.byDeliveryTime.popDue(now - minIdle);
    if (nack === undefined) break;
    if (retaken.has(nack)) {
      deferred.push(nack); // its node is re-pushed below, after the walk
      continue;
    }
    const fields = s.get(nack.id);
    if (fields == null) {
      effects.push(effect(nack, true));
      dropPending(g, nack);
      continue;
    }
    claimed.push({ id: nack.id, fields, idle: now - nack.deliveryTime, previousDeliveries: nack.deliveryCount });
    g.assign(nack.id, consumer, now, Math.min(nack.deliveryCount + 1, Number.MAX_SAFE_INTEGER));
    retaken.add(nack);
    effects.push(effect(nack, false));
  }
  for (const nack of deferred) g.retime(nack, nack.deliveryTime);
  if (claimed.length > 0) consumer.activeTime = now;
  return { claimed, effects };
}

/** True when some pending entry of the group has been idle at least `minIdle` ms. */
export function hasIdlePending(g: ConsumerGroup, minIdle: number, now: number): boolean {
  const oldest = g.byDeliveryTime.oldest();
  return oldest !== undefined && now - oldest.deliveryTime >= minIdle;
}

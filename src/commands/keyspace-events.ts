// Keyspace notifications (Redis's notify.c): the notify-keyspace-events classes, parsed and
// shown as Redis does, and the events published on __keyspace@<db>__:<key> (the event as the
// message) and __keyevent@<db>__:<event> (the key as the message). Handlers call
// Context.notify with the class and Redis's event name where Redis calls notifyKeyspaceEvent.
import { Buffer } from 'node:buffer';
import type { PubSubRegistry } from './pubsub-registry.js';

export const NOTIFY_KEYSPACE = 1 << 0; // K
export const NOTIFY_KEYEVENT = 1 << 1; // E
export const NOTIFY_GENERIC = 1 << 2; // g
export const NOTIFY_STRING = 1 << 3; // $
export const NOTIFY_LIST = 1 << 4; // l
export const NOTIFY_SET = 1 << 5; // s
export const NOTIFY_HASH = 1 << 6; // h
export const NOTIFY_ZSET = 1 << 7; // z
export const NOTIFY_EXPIRED = 1 << 8; // x
export const NOTIFY_EVICTED = 1 << 9; // e
export const NOTIFY_STREAM = 1 << 10; // t
export const NOTIFY_KEY_MISS = 1 << 11; // m (not part of A)
export const NOTIFY_MODULE = 1 << 13; // d
export const NOTIFY_NEW = 1 << 14; // n (not part of A)
export const NOTIFY_ALL =
  NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE;

const CLASS_OF: Record<string, number> = {
  A: NOTIFY_ALL,
  g: NOTIFY_GENERIC,
  $: NOTIFY_STRING,
  l: NOTIFY_LIST,
  s: NOTIFY_SET,
  h: NOTIFY_HASH,
  z: NOTIFY_ZSET,
  x: NOTIFY_EXPIRED,
  e: NOTIFY_EVICTED,
  K: NOTIFY_KEYSPACE,
  E: NOTIFY_KEYEVENT,
  t: NOTIFY_STREAM,
  m: NOTIFY_KEY_MISS,
  d: NOTIFY_MODULE,
  n: NOTIFY_NEW,
};

/** Redis's keyspaceEventsStringToFlags: -1 on a character that is no class. */
export function parseEventFlags(classes: string): number {
  let flags = 0;
  for (const c of classes) {
    const bit = CLASS_OF[c];
    if (bit === undefined) return -1;
    flags |= bit;
  }
  return flags;
}

/** Redis's keyspaceEventsFlagsToString: "A" when every class of A is on, K, E and m last. */
export function formatEventFlags(flags: number): string {
  let out = '';
  if ((flags & NOTIFY_ALL) === NOTIFY_ALL) out += 'A';
  else {
    const order: Array<[number, string]> = [
      [NOTIFY_GENERIC, 'g'],
      [NOTIFY_STRING, '$'],
      [NOTIFY_LIST, 'l'],
      [NOTIFY_SET, 's'],
      [NOTIFY_HASH, 'h'],
      [NOTIFY_ZSET, 'z'],
      [NOTIFY_EXPIRED, 'x'],
      [NOTIFY_EVICTED, 'e'],
      [NOTIFY_STREAM, 't'],
      [NOTIFY_MODULE, 'd'],
      [NOTIFY_NEW, 'n'],
    ];
    for (const [bit, c] of order) if (flags & bit) out += c;
  }
  if (flags & NOTIFY_KEYSPACE) out += 'K';
  if (flags & NOTIFY_KEYEVENT) out += 'E';
  if (flags & NOTIFY_KEY_MISS) out += 'm';
  return out;
}

/** Redis's error for a class character it does not know (CONFIG SET's text after the prefix). */
export const INVALID_EVENT_CLASS = "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";

/** Publishes keyspace events on the instance's Pub/Sub registry while the config asks for them. */
export class KeyspaceEvents {
  constructor(
    /** The parsed notify-keyspace-events (a Config.derived reading, one comparison per call). */
    private readonly flags: () => number,
    private readonly pubsub: PubSubRegistry,
  ) {}

  /** True when events of `type` are published (callers may skip building what they pass). */
  wants(type: number): boolean {
    return (this.flags() & type) !== 0;
  }

  /** Redis's notifyKeyspaceEvent: the keyspace channel first, then the keyevent one. */
  notify(type: number, event: string, key: string, db: number): void {
    const flags = this.flags();
    if ((flags & type) === 0) return;
    if (flags & NOTIFY_KEYSPACE) this.pubsub.publish('channel', `__keyspace@${db}__:${key}`, Buffer.from(event, 'latin1'));
    if (flags & NOTIFY_KEYEVENT) this.pubsub.publish('channel', `__keyevent@${db}__:${event}`, Buffer.from(key, 'latin1'));
  }
}

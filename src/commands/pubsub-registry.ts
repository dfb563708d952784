// The server-wide Pub/Sub registry: which clients listen on which channel, pattern or shard
// channel, and delivery of published messages to them (as Redis's pubsub.c). Names are latin1
// strings so that any bytes round-trip; the glob matcher works on the same form. Each client
// keeps its own side (ClientState.subscriptions); the two are changed together only here.
import { PushReply, type Reply } from '../resp/reply.js';
import type { ClientState } from './client-state.js';
import { globMatch } from './glob.js';

export type ChannelKind = 'channel' | 'shard';

const bytes = (name: string): Buffer => Buffer.from(name, 'latin1');

/** Subscribers by name, in the order they subscribed (Redis appends to a list). */
class Listeners {
  private readonly byName = new Map<string, Set<ClientState>>();

  add(name: string, client: ClientState): void {
    let set = this.byName.get(name);
    if (set === undefined) this.byName.set(name, (set = new Set()));
    set.add(client);
  }

  /** Forgets the name once its last subscriber leaves, so channel names never pile up. */
  remove(name: string, client: ClientState): void {
    const set = this.byName.get(name);
    if (set === undefined) return;
    set.delete(client);
    if (set.size === 0) this.byName.delete(name);
  }

  get(name: string): ReadonlySet<ClientState> | undefined {
    return this.byName.get(name);
  }

  get size(): number {
    return this.byName.size;
  }

  entries(): IterableIterator<[string, Set<ClientState>]> {
    return this.byName.entries();
  }

  names(): IterableIterator<string> {
    return this.byName.keys();
  }
}

export class PubSubRegistry {
  private readonly channels = new Listeners();
  private readonly shardChannels = new Listeners();
  private readonly patterns = new Listeners();

  private listeners(kind: ChannelKind): Listeners {
    return kind === 'shard' ? this.shardChannels : this.channels;
  }

  private own(client: ClientState, kind: ChannelKind): Set<string> {
    return kind === 'shard' ? client.subscriptions.shardChannels : client.subscriptions.channels;
  }

  /** SUBSCRIBE / SSUBSCRIBE of one name: the confirmation to send the client. */
  subscribe(client: ClientState, kind: ChannelKind, name: string): Reply {
    const own = this.own(client, kind);
    if (!own.has(name)) {
      own.add(name);
      this.listeners(kind).add(name, client);
    }
    return confirmation(kind === 'shard' ? 'ssubscribe' : 'subscribe', name, this.countFor(client, kind));
  }

  /** UNSUBSCRIBE / SUNSUBSCRIBE of one name (a name never subscribed is confirmed too). */
  unsubscribe(client: ClientState, kind: ChannelKind, name: string): Reply {
    const own = this.own(client, kind);
    if (own.delete(name)) this.listeners(kind).remove(name, client);
    return confirmation(kind === 'shard' ? 'sunsubscribe' : 'unsubscribe', name, this.countFor(client, kind));
  }

  /** UNSUBSCRIBE with no names: one confirmation per channel, or one with a null name. */
  unsubscribeAll(client: ClientState, kind: ChannelKind): Reply[] {
    const names = [...this.own(client, kind)];
    const replies = names.map((name) => this.unsubscribe(client, kind, name));
    if (replies.length === 0) {
      replies.push(confirmation(kind === 'shard' ? 'sunsubscribe' : 'unsubscribe', null, this.countFor(client, kind)));
    }
    return replies;
  }

  psubscribe(client: ClientState, pattern: string): Reply {
    const own = client.subscriptions.patterns;
    if (!own.has(pattern)) {
      own.add(pattern);
      this.patterns.add(pattern, client);
    }
    return confirmation('psubscribe', pattern, client.subscriptions.count);
  }

  punsubscribe(client: ClientState, pattern: string): Reply {
    if (client.subscriptions.patterns.delete(pattern)) this.patterns.remove(pattern, client);
    return confirmation('punsubscribe', pattern, client.subscriptions.count);
  }

  punsubscribeAll(client: ClientState): Reply[] {
    const replies = [...client.subscriptions.patterns].map((p) => this.punsubscribe(client, p));
    if (replies.length === 0) replies.push(confirmation('punsubscribe', null, client.subscriptions.count));
    return replies;
  }

  /** Drops every subscription of a client without telling it (RESET, disconnection). */
  forget(client: ClientState): void {
    for (const kind of ['channel', 'shard'] as const) {
      for (const name of this.own(client, kind)) this.listeners(kind).remove(name, client);
      this.own(client, kind).clear();
    }
    for (const pattern of client.subscriptions.patterns) this.patterns.remove(pattern, client);
    client.subscriptions.patterns.clear();
  }

  /**
   * PUBLISH / SPUBLISH: delivers the message to the channel's subscribers, then (not for shard
   * channels) to every client whose pattern matches. Returns the number of deliveries.
   */
  publish(kind: ChannelKind, channel: string, message: Buffer): number {
    let receivers = 0;
    const name = bytes(channel);
    for (const client of this.listeners(kind).get(channel) ?? []) {
      client.push?.(new PushReply([kind === 'shard' ? 'smessage' : 'message', name, message]));
      receivers++;
    }
    if (kind === 'shard') return receivers;
    for (const [pattern, clients] of this.patterns.entries()) {
      if (!globMatch(pattern, channel)) continue;
      for (const client of clients) {
        client.push?.(new PushReply(['pmessage', bytes(pattern), name, message]));
        receivers++;
      }
    }
    return receivers;
  }

  /** PUBSUB CHANNELS / SHARDCHANNELS: active names matching the pattern (all without one). */
  activeNames(kind: ChannelKind, pattern: string | null): Buffer[] {
    const out: Buffer[] = [];
    for (const name of this.listeners(kind).names()) {
      if (pattern === null || globMatch(pattern, name)) out.push(bytes(name));
    }
    return out;
  }

  /** PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one name (pattern subscribers not counted). */
  subscriberCount(kind: ChannelKind, name: string): number {
    return this.listeners(kind).get(name)?.size ?? 0;
  }

  /** Channels with at least one subscriber (INFO's pubsub_channels). */
  channelCount(kind: ChannelKind): number {
    return this.listeners(kind).size;
  }

  /** Distinct patterns subscribed (PUBSUB NUMPAT, INFO's pubsub_patterns). */
  get patternCount(): number {
    return this.patterns.size;
  }

  private countFor(client: ClientState, kind: ChannelKind): number {
    return kind === 'shard' ? client.subscriptions.shardChannels.size : client.subscriptions.count;
  }
}

/** A (un)subscription confirmation: a push in RESP3, a 3-element array in RESP2. */
function confirmation(kind: string, name: string | null, count: number): Reply {
  return new PushReply([kind, name === null ? null : bytes(name), count]);
}

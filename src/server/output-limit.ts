// client-output-buffer-limit, as Redis's checkClientOutputBufferLimits: a client whose unsent
// replies reach the hard limit, or stay at or above the soft limit for more than the soft
// seconds, is disconnected. (Before either, sluice stops reading from a client whose replies
// pile up; see Connection.) A replica attached to this primary is of the replica (slave) class,
// a subscribed client of the pubsub class, any other of the normal class.
// A client that has not authenticated yet has a small fixed limit of its own, whatever the
// setting (Redis's fix for CVE-2025-21605, in redis-server 7.0.15 as distributions ship it).
import type { Config } from '../commands/config.js';
import { parseOutputBufferLimits, type ClientClass, type OutputBufferLimit } from '../commands/config-values.js';

/** The parsed setting, with each class's largest limit (what back-pressure must let through). */
interface ParsedLimits {
  byClass: Record<ClientClass, OutputBufferLimit>;
  normalHighest: number;
  pubsubHighest: number;
  replicaHighest: number;
}

// One parse of the setting's text for every connection.
let parsedText = '';
let parsed: ParsedLimits | null = null;

function parsedLimits(config: Config): ParsedLimits {
  const text = config.get('client-output-buffer-limit');
  if (parsed === null || text !== parsedText) {
    const byClass = parseOutputBufferLimits(text);
    const highest = (l: OutputBufferLimit): number => Math.max(l.hard, l.soft);
    parsed = { byClass, normalHighest: highest(byClass.normal), pubsubHighest: highest(byClass.pubsub), replicaHighest: highest(byClass.slave) };
    parsedText = text;
  }
  return parsed;
}

/**
 * An unauthenticated client is closed, its replies unsent, once they pass this: Redis's reply
 * buffer (16 KiB), as the first byte spilling into its reply list is over the 1 KiB it allows.
 * Measured against redis-server 7.0.15: 481 pipelined PINGs (16,354 bytes of NOAUTH errors) are
 * answered, 482 close the connection with nothing sent.
 */
export const UNAUTHENTICATED_OUTPUT_LIMIT = 16 * 1024;

export class OutputLimit {
  /** When the soft limit was first seen reached (ms), or 0. */
  private softSince = 0;
  // The limits, looked up again only when the config changed: a connection asks for them on
  // every write, and the former lookup there (config read, text comparison, per-class lookup)
  // cost 0.3 µs a request unpipelined.
  private readonly current: () => ParsedLimits;

  constructor(
    config: Config,
    /** The client's class now (it changes as the client subscribes and unsubscribes). */
    private readonly classOf: () => ClientClass = () => 'normal',
  ) {
    this.current = config.derived(parsedLimits);
  }

  /** True when a client with `used` bytes of unsent replies must be disconnected now. */
  exceeded(used: number, now?: number): boolean {
    // Nothing unsent (a write the socket took whole): no limit can be reached.
    if (used === 0) {
      this.softSince = 0;
      return false;
    }
    const { hard, soft, softSeconds } = this.current().byClass[this.classOf()];
    if (hard > 0 && used >= hard) return true;
    if (soft > 0 && used >= soft) {
      const at = now ?? Date.now();
      if (this.softSince === 0) {
        this.softSince = at;
        return false;
      }
      // Redis compares whole seconds: closed once more than softSeconds have passed.
      return Math.floor((at - this.softSince) / 1000) > softSeconds;
    }
    this.softSince = 0;
    return false;
  }

  /**
   * The largest configured limit (0 when none). Back-pressure must let the output reach it, or
   * a client that never reads would be stalled forever instead of disconnected as in Redis.
   */
  get highest(): number {
    const limits = this.current();
    const cls = this.classOf();
    return cls === 'normal' ? limits.normalHighest : cls === 'pubsub' ? limits.pubsubHighest : limits.replicaHighest;
  }
}

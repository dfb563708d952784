// client-output-buffer-limit, as Redis's checkClientOutputBufferLimits: a client whose unsent
// replies reach the hard limit, or stay at or above the soft limit for more than the soft
// seconds, is disconnected. (Before either, sluice stops reading from a client whose replies
// pile up; see Connection.) A subscribed client is of the pubsub class, any other of the normal
// class: sluice has no replicas, whose limits are kept for CONFIG GET/SET as Redis shows them.
import type { Config } from '../commands/config.js';
import { parseOutputBufferLimits, type ClientClass, type OutputBufferLimit } from '../commands/config-values.js';

export class OutputLimit {
  /** When the soft limit was first seen reached (ms), or 0. */
  private softSince = 0;
  // The parsed limits, read again when the config changed: a connection asks for them on every
  // write, and parsing (or even a keyed lookup per class) cost 0.3 µs a request unpipelined.
  private generation = -1;
  private limits: Record<ClientClass, OutputBufferLimit> | null = null;
  private normalHighest = 0;
  private pubsubHighest = 0;
  private replicaHighest = 0;

  constructor(
    private readonly config: Config,
    /** The client's class now (it changes as the client subscribes and unsubscribes). */
    private readonly classOf: () => ClientClass = () => 'normal',
  ) {}

  private limitsOf(cls: ClientClass): OutputBufferLimit {
    return this.current()[cls];
  }

  private current(): Record<ClientClass, OutputBufferLimit> {
    if (this.generation !== this.config.generation || this.limits === null) {
      const limits = parseOutputBufferLimits(this.config.get('client-output-buffer-limit'));
      this.limits = limits;
      this.generation = this.config.generation;
      this.normalHighest = Math.max(limits.normal.hard, limits.normal.soft);
      this.pubsubHighest = Math.max(limits.pubsub.hard, limits.pubsub.soft);
      this.replicaHighest = Math.max(limits.slave.hard, limits.slave.soft);
    }
    return this.limits;
  }

  /** True when a client with `used` bytes of unsent replies must be disconnected now. */
  exceeded(used: number, now?: number): boolean {
    // Nothing unsent (a write the socket took whole): no limit can be reached.
    if (used === 0) {
      this.softSince = 0;
      return false;
    }
    const { hard, soft, softSeconds } = this.limitsOf(this.classOf());
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
    this.current();
    const cls = this.classOf();
    return cls === 'normal' ? this.normalHighest : cls === 'pubsub' ? this.pubsubHighest : this.replicaHighest;
  }
}

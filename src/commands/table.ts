import type { Buffer } from 'node:buffer';
import { equalsLower, type RequestArgs } from '../resp/request-args.js';
import { Resolved } from './core/resolved.js';
import type { CommandSpec } from './types.js';

/** The command table: lower-case name to spec, as Redis's server.commands dict. */
export class CommandTable {
  private readonly byName = new Map<string, CommandSpec>();
  /**
   * Specs by their name's length and lower-cased first byte, so dispatch needs no string per
   * command and reads the name's bytes once (Buffer.toString plus toLowerCase, or a hash of
   * the bytes and a Map, cost more than the comparison itself).
   */
  // Filled up front: a sparse array of this size would be a slow dictionary.
  private readonly byShape: Array<Resolved[] | null> = new Array<Resolved[] | null>((MAX_NAME + 1) << 8).fill(null);

  register(specs: CommandSpec[]): void {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`command ${spec.name} registered twice`);
      if (spec.name.length === 0 || spec.name.length > MAX_NAME) throw new Error(`command name ${spec.name} too long`);
      this.byName.set(spec.name, spec);
      const slot = shapeSlot(spec.name.length, spec.name.charCodeAt(0));
      const bucket = this.byShape[slot];
      const resolved = new Resolved(spec);
      if (bucket === null) this.byShape[slot] = [resolved];
      else bucket.push(resolved);
    }
  }

  /** Looks a command up by its name's bytes, ignoring ASCII case (argv callers: MULTI, replay, the embedded client). */
  lookup(name: Buffer): Resolved | undefined {
    const length = name.length;
    if (length === 0 || length > MAX_NAME) return undefined;
    const bucket = this.byShape[shapeSlot(length, name[0]!)]!;
    if (bucket === null) return undefined;
    for (let i = 0; i < bucket.length; i++) if (equalsLower(name, 0, length, bucket[i]!.name)) return bucket[i];
    return undefined;
  }

  /** lookup() for the name a parsed request holds, read in place. */
  lookupArgs(args: RequestArgs): Resolved | undefined {
    const length = args.byteLength(0);
    if (length === 0 || length > MAX_NAME) return undefined;
    const bucket = this.byShape[shapeSlot(length, args.lowerByte(0, 0))]!;
    if (bucket === null) return undefined;
    for (let i = 0; i < bucket.length; i++) if (args.is(0, bucket[i]!.name)) return bucket[i];
    return undefined;
  }

  get(name: string): CommandSpec | undefined {
    return this.byName.get(name);
  }

  all(): CommandSpec[] {
    return [...this.byName.values()];
  }

  get size(): number {
    return this.byName.size;
  }
}

/** The longest command name the table holds (Redis's longest is 20 bytes). */
const MAX_NAME = 63;

function shapeSlot(length: number, first: number): number {
  return (length << 8) | (first >= 65 && first <= 90 ? first + 32 : first);
}

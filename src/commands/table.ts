import { Buffer } from 'node:buffer';
import type { CommandSpec } from './types.js';

/** The command table: lower-case name to spec, as Redis's server.commands dict. */
export class CommandTable {
  private readonly byName = new Map<string, CommandSpec>();
  /**
   * Names by a case-insensitive hash of their bytes, so dispatch needs no string per command
   * (Buffer.toString plus toLowerCase cost more than the rest of the lookup).
   */
  private readonly byHash = new Map<number, CommandSpec[]>();

  register(specs: CommandSpec[]): void {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`command ${spec.name} registered twice`);
      this.byName.set(spec.name, spec);
      const h = nameHash(Buffer.from(spec.name, 'latin1'));
      const bucket = this.byHash.get(h);
      if (bucket === undefined) this.byHash.set(h, [spec]);
      else bucket.push(spec);
    }
  }

  /** Looks a command up by its name's bytes, ignoring ASCII case (the hot path of dispatch). */
  lookup(name: Buffer): CommandSpec | undefined {
    const bucket = this.byHash.get(nameHash(name));
    if (bucket === undefined) return undefined;
    for (const spec of bucket) if (sameName(name, spec.name)) return spec;
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

function nameHash(name: Buffer): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) {
    let c = name[i]!;
    if (c >= 65 && c <= 90) c += 32;
    h = (h * 31 + c) | 0;
  }
  return h;
}

/** `name` (any case) equals the lower-case `expected`. */
function sameName(name: Buffer, expected: string): boolean {
  if (name.length !== expected.length) return false;
  for (let i = 0; i < name.length; i++) {
    let c = name[i]!;
    if (c >= 65 && c <= 90) c += 32;
    if (c !== expected.charCodeAt(i)) return false;
  }
  return true;
}

import type { CommandSpec } from './types.js';

/** The command table: lower-case name to spec, as Redis's server.commands dict. */
export class CommandTable {
  private readonly byName = new Map<string, CommandSpec>();

  register(specs: CommandSpec[]): void {
    for (const spec of specs) {
      if (this.byName.has(spec.name)) throw new Error(`command ${spec.name} registered twice`);
      this.byName.set(spec.name, spec);
    }
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

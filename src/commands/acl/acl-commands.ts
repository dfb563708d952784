// The command table as ACL rules see it (Redis's server.orig_commands for acl.c): every command
// and subcommand with its full name and its ACL categories, the ones its spec declares plus the
// ones Redis's setImplicitACLCategories derives from its flags, in Redis's category order.
import type { CommandCatalog, CommandSpec } from '../types.js';

/** Redis 7.0's ACL categories, in ACLCommandCategories' order (ACL CAT, COMMAND INFO, rule descriptions). */
export const ACL_CATEGORIES = [
  'keyspace', 'read', 'write', 'set', 'sortedset', 'list', 'hash', 'string', 'bitmap', 'hyperloglog',
  'geo', 'stream', 'pubsub', 'admin', 'fast', 'slow', 'blocking', 'dangerous', 'connection',
  'transaction', 'scripting',
] as const;

/** A category's name as Redis looks it up (strcasecmp), or null when there is none. */
export function categoryNamed(name: string): string | null {
  const lowered = name.toLowerCase();
  return (ACL_CATEGORIES as readonly string[]).includes(lowered) ? lowered : null;
}

/** One command or subcommand, as ACL rules address it. */
export interface AclCommand {
  /** "get", or "config|get" for a subcommand. */
  readonly fullName: string;
  readonly categories: ReadonlySet<string>;
  readonly parent: AclCommand | null;
  readonly subcommands: readonly AclCommand[];
  /** no_auth commands (AUTH, HELLO ...) pass every selector's command check, as in Redis. */
  readonly noAuth: boolean;
  readonly spec: CommandSpec;
}

/** setImplicitACLCategories: the categories a command's flags imply. */
function categoriesOf(spec: CommandSpec, parent: CommandSpec | null): Set<string> {
  // A subcommand without categories of its own has its container's, as COMMAND INFO shows it.
  const out = new Set(spec.categories ?? parent?.categories ?? []);
  const flags = spec.flags;
  if (flags.includes('write')) out.add('write');
  if (flags.includes('readonly') && !out.has('scripting')) out.add('read');
  if (flags.includes('admin')) {
    out.add('admin');
    out.add('dangerous');
  }
  if (flags.includes('pubsub')) out.add('pubsub');
  if (flags.includes('fast')) out.add('fast');
  if (flags.includes('blocking')) out.add('blocking');
  if (!out.has('fast')) out.add('slow');
  return out;
}

/** The commands ACL rules name: made once per command table (it does not change after start). */
export class AclCommandSet {
  /** Top-level commands in table order; subcommands hang under their container. */
  readonly commands: AclCommand[] = [];
  private readonly byName = new Map<string, AclCommand>();
  /** Every command and subcommand, a container before its subcommands. */
  readonly flat: AclCommand[] = [];

  constructor(table: CommandCatalog) {
    for (const spec of table.all()) {
      const subs: AclCommand[] = [];
      const cmd: AclCommand = {
        fullName: spec.name,
        categories: categoriesOf(spec, null),
        parent: null,
        subcommands: subs,
        noAuth: spec.flags.includes('no_auth'),
        spec,
      };
      this.commands.push(cmd);
      this.byName.set(cmd.fullName, cmd);
      this.flat.push(cmd);
      for (const subSpec of spec.subcommands ?? []) {
        const sub: AclCommand = {
          fullName: `${spec.name}|${subSpec.name}`,
          categories: categoriesOf(subSpec, spec),
          parent: cmd,
          subcommands: [],
          noAuth: subSpec.flags.includes('no_auth'),
          spec: subSpec,
        };
        subs.push(sub);
        this.byName.set(sub.fullName, sub);
        this.flat.push(sub);
      }
    }
  }

  /**
   * ACLLookupCommand: "name" or "container|sub", ignoring case; a name with a "|" finds only a
   * subcommand of a container (lookupCommandBySdsLogic's strict lookup).
   */
  lookup(name: string): AclCommand | undefined {
    const parts = name.toLowerCase().split('|');
    if (parts.length > 2) return undefined;
    const base = this.byName.get(parts[0]!);
    if (parts.length === 1) return base;
    if (base === undefined || base.subcommands.length === 0) return undefined;
    return this.byName.get(`${parts[0]}|${parts[1]}`);
  }

  /** The command (or subcommand) a resolved command line ran, by its full name. */
  byFullName(fullName: string): AclCommand | undefined {
    return this.byName.get(fullName);
  }
}

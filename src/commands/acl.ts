// ACL and its subcommands, as Redis 7.0's aclCommand: SETUSER, GETUSER, DELUSER, USERS, LIST,
// WHOAMI, CAT, GENPASS, DRYRUN, LOG, LOAD, SAVE, HELP. The users and rules live in acl/.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { MapReply, OK, type Reply, SetReply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { isKeyword, parseInt64 } from './args.js';
import { helpReply, subcommandSyntaxError } from './help.js';
import { ACL_CATEGORIES, categoryNamed } from './acl/acl-commands.js';
import { aclOf, latin1 } from './acl/acl-users.js';
import { aclFileText, loadAclFile } from './acl/acl-file.js';
import { ACL_DENIED_CMD, ACL_DENIED_KEY, checkCommand } from './acl/permission-check.js';
import type { Selector } from './acl/selector.js';
import { type CommandSpec, type Context, command, container } from './types.js';

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

function setuser(ctx: Context, argv: Buffer[]): Reply {
  const error = aclOf(ctx.instance).setUser(latin1(argv[2]!), argv.slice(3).map(latin1));
  if (error !== null) fail(error);
  return OK;
}

function deluser(ctx: Context, argv: Buffer[]): Reply {
  const acl = aclOf(ctx.instance);
  const names = argv.slice(2).map(latin1);
  if (names.includes('default')) fail(Errors.aclDefaultUndeletable);
  let deleted = 0;
  for (const name of names) if (acl.delete(name, ctx.client)) deleted++;
  return deleted;
}

/** aclAddReplySelectorDescription: commands, keys, channels. */
function selectorFields(s: Selector): Array<[Reply, Reply]> {
  return [
    ['commands', bytes(s.describeCommandRules())],
    ['keys', bytes(s.describeKeys(' '))],
    ['channels', bytes(s.allChannels ? '&*' : s.channels.map((c) => `&${c}`).join(' '))],
  ];
}

function getuser(ctx: Context, argv: Buffer[]): Reply {
  const acl = aclOf(ctx.instance);
  const user = acl.get(latin1(argv[2]!));
  if (user === undefined) return null;
  return new MapReply([
    ['flags', new SetReply(user.flags())],
    ['passwords', user.passwords.map(bytes)],
    ...selectorFields(user.root),
    ['selectors', user.selectors.slice(1).map((s) => new MapReply(selectorFields(s)))],
  ]);
}

function list(ctx: Context): Reply {
  const acl = aclOf(ctx.instance);
  return acl.all().map((u) => bytes(`user ${u.name} ${u.describe()}`));
}

function users(ctx: Context): Reply {
  return aclOf(ctx.instance).all().map((u) => bytes(u.name));
}

function whoami(ctx: Context): Reply {
  const user = ctx.client.user;
  return user === null ? null : bytes(user.name);
}

/** Past the arguments a subcommand takes, aclCommand ends in addReplySubcommandSyntaxError. */
function atMost(argv: Buffer[], max: number): void {
  if (argv.length > max) fail(subcommandSyntaxError(argv[1]!, 'ACL'));
}

function cat(ctx: Context, argv: Buffer[]): Reply {
  atMost(argv, 3);
  if (argv.length === 2) return [...ACL_CATEGORIES];
  const category = categoryNamed(latin1(argv[2]!));
  if (category === null) fail(Errors.aclUnknownCategory(argv[2]!.toString('utf8').slice(0, 128)));
  return aclOf(ctx.instance)
    .commands.flat.filter((c) => c.categories.has(category))
    .map((c) => c.fullName);
}

/** GENPASS [bits]: random hex digits, 4 bits each, 256 bits by default. */
function genpass(_ctx: Context, argv: Buffer[]): Reply {
  atMost(argv, 3);
  let bits = 256n;
  if (argv.length === 3) {
    const parsed = parseInt64(argv[2]!);
    if (parsed === undefined) fail(Errors.notInteger);
    bits = parsed;
  }
  if (bits <= 0n || bits > 4096n) fail(Errors.aclGenpassBits);
  const chars = Math.floor((Number(bits) + 3) / 4);
  return randomBytes(Math.ceil(chars / 2)).toString('hex').slice(0, chars);
}

function log(ctx: Context, argv: Buffer[]): Reply {
  atMost(argv, 3);
  const acl = aclOf(ctx.instance);
  let count = 10;
  if (argv.length === 3) {
    if (isKeyword(argv[2], 'reset')) {
      acl.log.reset();
      return OK;
    }
    const parsed = parseInt64(argv[2]!);
    if (parsed === undefined) fail(Errors.notInteger);
    count = parsed < 0n ? 0 : Number(parsed > 1000000n ? 1000000n : parsed);
  }
  return acl.log.reply(count);
}

/** DRYRUN user command [arg ...]: OK, or why the user may not run it (a bulk string). */
function dryrun(ctx: Context, argv: Buffer[]): Reply {
  const acl = aclOf(ctx.instance);
  const user = acl.get(latin1(argv[2]!));
  if (user === undefined) fail(Errors.aclDryrunNoUser(argv[2]!.toString('utf8')));
  const line = argv.slice(3);
  const base = ctx.instance.table.get(latin1(line[0]!).toLowerCase());
  let spec: CommandSpec | undefined = base;
  let fullName = base?.name ?? '';
  if (base?.subcommands !== undefined && line.length > 1) {
    spec = base.subcommands.find((s) => s.name === latin1(line[1]!).toLowerCase());
    fullName = `${base.name}|${spec?.name ?? ''}`;
  }
  if (spec === undefined) fail(Errors.aclDryrunNoCommand(line[0]!.toString('utf8')));
  if ((spec.arity > 0 && spec.arity !== line.length) || line.length < -spec.arity) fail(Errors.wrongArity(fullName));
  const cmd = acl.commands.byFullName(fullName);
  if (cmd === undefined) fail(Errors.aclDryrunNoCommand(line[0]!.toString('utf8')));
  const verdict = checkCommand(user, cmd, line);
  if (verdict.result === ACL_DENIED_CMD) return `This user has no permissions to run the '${fullName}' command`;
  if (verdict.result === ACL_DENIED_KEY) return bytes(`This user has no permissions to access the '${latin1(line[verdict.pos]!)}' key`);
  if (verdict.result !== 0) return bytes(`This user has no permissions to access the '${latin1(line[verdict.pos]!)}' channel`);
  return OK;
}

/** The aclfile ACL LOAD and SAVE use; refused when none is configured (or nothing can reach files). */
function aclFile(ctx: Context) {
  const file = aclOf(ctx.instance).file;
  if (ctx.instance.config.get('aclfile') === '' || file === null) fail(Errors.aclNoFile);
  return file;
}

/** ACL LOAD: the file's users replace all of them, or nothing changes. */
function load(ctx: Context): Reply {
  const file = aclFile(ctx);
  const acl = aclOf(ctx.instance);
  let text: string;
  try {
    text = file.read();
  } catch (err) {
    fail(Errors.aclLoadErrors(`Error loading ACLs, opening file '${file.name}': ${(err as Error).message}`));
  }
  const errors = loadAclFile(acl, text, file.name, ctx.client);
  if (errors !== null) fail(Errors.aclLoadErrors(errors));
  return OK;
}

/** ACL SAVE: ACL LIST's lines, written atomically. */
function save(ctx: Context): Reply {
  const file = aclFile(ctx);
  try {
    file.write(aclFileText(aclOf(ctx.instance)));
  } catch (err) {
    ctx.instance.logger.warn(`Writing ACL file for ACL SAVE: ${(err as Error).message}`);
    fail(Errors.aclSaveFailed);
  }
  return OK;
}

const ACL_HELP = [
  'CAT [<category>]',
  '    List all commands that belong to <category>, or all command categories',
  '    when no category is specified.',
  'DELUSER <username> [<username> ...]',
  '    Delete a list of users.',
  'DRYRUN <username> <command> [<arg> ...]',
  '    Returns whether the user can execute the given command without executing the command.',
  'GETUSER <username>',
  "    Get the user's details.",
  'GENPASS [<bits>]',
  '    Generate a secure 256-bit user password. The optional `bits` argument can',
  '    be used to specify a different size.',
  'LIST',
  '    Show users details in config file format.',
  'LOAD',
  '    Reload users from the ACL file.',
  'LOG [<count> | RESET]',
  '    Show the ACL log entries.',
  'SAVE',
  '    Save the current config to the ACL file.',
  'SETUSER <username> <attribute> [<attribute> ...]',
  '    Create or modify a user with the specified attributes.',
  'USERS',
  '    List all the registered usernames.',
  'WHOAMI',
  '    Return the current connection username.',
];

const ADMIN = ['admin', 'noscript', 'loading', 'stale'] as const;
const PLAIN = ['noscript', 'loading', 'stale'] as const;
const sub = (name: string, arity: number, flags: readonly CommandSpec['flags'][number][], handler: CommandSpec['handler'] & object, summary: string) =>
  command(name, arity, [...flags], null, handler, {
    summary,
    since: '6.0.0',
    group: 'server',
    categories: flags.includes('admin') ? ['admin', 'slow', 'dangerous'] : ['slow'],
  });

export const commands: CommandSpec[] = [
  container(
    'acl',
    -2,
    [
      sub('cat', -2, PLAIN, cat, 'List the ACL categories or the commands inside a category'),
      sub('deluser', -3, ADMIN, deluser, 'Remove the specified ACL users and the associated rules'),
      sub('dryrun', -4, ADMIN, dryrun, 'Returns whether the user can execute the given command without executing the command.'),
      sub('genpass', -2, PLAIN, genpass, 'Generate a pseudorandom secure password to use for ACL users'),
      sub('getuser', 3, ADMIN, getuser, 'Get the rules for a specific ACL user'),
      sub('help', 2, ['loading', 'stale'], () => helpReply('ACL', ACL_HELP), 'Show helpful text about the different subcommands'),
      sub('list', 2, ADMIN, list, 'List the current ACL rules in ACL config file format'),
      sub('load', 2, ADMIN, load, 'Reload the ACLs from the configured ACL file'),
      sub('log', -2, ADMIN, log, 'List latest events denied because of ACLs in place'),
      sub('save', 2, ADMIN, save, 'Save the current ACL rules in the configured ACL file'),
      sub('setuser', -3, ADMIN, setuser, 'Modify or create the rules for a specific ACL user'),
      sub('users', 2, ADMIN, users, 'List the username of all the configured ACL rules'),
      sub('whoami', 2, PLAIN, whoami, 'Return the name of the user associated to the current connection'),
    ],
    { summary: 'A container for Access List Control commands', since: '6.0.0', group: 'server' },
  ),
];

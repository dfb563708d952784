// MIGRATE (cluster.c's migrateCommand): keys sent to another server as RESTORE commands with
// their DUMP payloads and remaining TTLs, then deleted here unless COPY, and propagated as one
// DEL of the keys the target acknowledged. Replies and errors are Redis 7.0's: +NOKEY when none
// of the keys exists, "Target instance replied with error: ..." for the target's first error,
// IOERR for a connection that fails (retried once on a fresh connection unless it timed out).
//
// Redis blocks the whole server while it talks to the target, which is what makes MIGRATE
// atomic: no command can change a key between its DUMP and its deletion. sluice waits for the
// target without blocking its event loop, so it holds every other client's commands for that
// time instead (a pause of ALL commands, as CLIENT PAUSE ALL), and gets the same atomicity.
import { keyOf } from '../engine/keyspace.js';
import { dumpPayload } from '../rdb/dump-payload.js';
import { encodeCommand } from '../resp/encoder.js';
import { ErrorReply, fail, OK, type Reply, SimpleString } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, lower } from './args.js';
import { NOTIFY_GENERIC } from './keyspace-events.js';
import { MigrateConnections, MigrateIoError, type MigrateConnection } from './migrate-connection.js';
import { command, type CommandSpec, type Context } from './types.js';
import { perInstance } from './per-instance.js';

interface MigrateRequest {
  host: string;
  port: number;
  db: number;
  timeoutMs: number;
  copy: boolean;
  replace: boolean;
  username: Buffer | null;
  password: Buffer | null;
  keys: Buffer[];
}

export const migrateConnections = perInstance(() => new MigrateConnections());

/** Where the keys are: argv[3], or every argument after KEYS (argv[3] must then be empty). */
function keyPositions(argv: Buffer[]): number[] {
  for (let j = 6; j < argv.length; j++) {
    const option = lower(argv[j]!);
    if (option === 'keys') return argv[3]!.length === 0 ? Array.from({ length: argv.length - j - 1 }, (_, i) => j + 1 + i) : [];
    if (option === 'auth') j++;
    else if (option === 'auth2') j += 2;
  }
  return [3];
}

function parse(argv: Buffer[]): MigrateRequest {
  let copy = false;
  let replace = false;
  let username: Buffer | null = null;
  let password: Buffer | null = null;
  let keys: Buffer[] = [argv[3]!];
  for (let j = 6; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    const option = lower(argv[j]!);
    if (option === 'copy') copy = true;
    else if (option === 'replace') replace = true;
    else if (option === 'auth') {
      if (more < 1) fail(Errors.syntax);
      password = argv[++j]!;
    } else if (option === 'auth2') {
      if (more < 2) fail(Errors.syntax);
      username = argv[++j]!;
      password = argv[++j]!;
    } else if (option === 'keys') {
      if (argv[3]!.length !== 0) fail(Errors.migrateKeysWithKey);
      keys = argv.slice(j + 1);
      break;
    } else fail(Errors.syntax);
  }
  // As Redis: the timeout is parsed before the database.
  const timeout = int64Arg(argv[5]!);
  const db = int64Arg(argv[4]!);
  return {
    host: argv[1]!.toString('utf8'),
    port: Number(int64Arg(argv[2]!)),
    db: Number(db),
    timeoutMs: timeout <= 0n ? 1000 : Number(timeout),
    copy,
    replace,
    username,
    password,
    keys,
  };
}

function migrate(ctx: Context, argv: Buffer[]): Reply | Promise<Reply> {
  const request = parse(argv);
  // Keys that exist now (expired ones are gone); none: nothing to do, and no connection made.
  const present = request.keys.filter((k) => ctx.db.get(keyOf(k)) !== undefined);
  if (present.length === 0) return new SimpleString('NOKEY');
  if (ctx.noBlock) fail(Errors.migrateNotHere);
  const { instance } = ctx;
  instance.pause.pause('migrate', Infinity, 'all');
  return transfer(ctx, request, present).finally(() => instance.pause.unpause('migrate'));
}

/** An attempt's end: a reply, or a failed connection (retried on a new one when `retry`). */
type Attempt = { reply: Reply } | { ioError: 'writing' | 'reading'; retry: boolean };

async function transfer(ctx: Context, request: MigrateRequest, present: Buffer[]): Promise<Reply> {
  const connections = migrateConnections(ctx.instance);
  for (let attempt = 0; ; attempt++) {
    const deadline = Date.now() + request.timeoutMs;
    const connection = await connections.get(request.host, request.port, deadline);
    if (connection === null) return new ErrorReply(Errors.migrateConnect);
    let result: Attempt;
    try {
      result = await exchange(ctx, request, present, connection, deadline);
    } finally {
      connection.release();
    }
    if ('reply' in result) return result.reply;
    connections.drop(request.host, request.port);
    // Once only, and never after a timeout (Redis's may_retry): a cached connection the target closed is common.
    if (attempt === 0 && result.retry) continue;
    return new ErrorReply(Errors.migrateIo(result.ioError));
  }
}

/** One attempt: AUTH and SELECT as needed, a RESTORE per key, then the replies in order. */
async function exchange(ctx: Context, request: MigrateRequest, present: Buffer[], connection: MigrateConnection, deadline: number): Promise<Attempt> {
  const commands: Buffer[] = [];
  if (request.password !== null) {
    commands.push(encodeCommand(request.username === null ? ['AUTH', request.password] : ['AUTH', request.username, request.password]));
  }
  const select = connection.lastDb !== request.db;
  if (select) commands.push(encodeCommand(['SELECT', String(request.db)]));
  const sent: Buffer[] = [];
  const now = ctx.instance.keyspace.now();
  for (const key of present) {
    const value = ctx.db.get(keyOf(key));
    if (value === undefined) continue;
    const expireAt = ctx.db.getExpire(keyOf(key));
    let ttl = 0;
    if (expireAt !== undefined) {
      ttl = expireAt - now;
      if (ttl < 0) continue;
      if (ttl < 1) ttl = 1;
    }
    sent.push(key);
    const restore: Array<Buffer | string> = ['RESTORE', key, String(ttl), dumpPayload(value)];
    if (request.replace) restore.push('REPLACE');
    commands.push(encodeCommand(restore));
  }
  try {
    await connection.write(Buffer.concat(commands), deadline);
  } catch (err) {
    return ioFailure(err, 'writing', true);
  }
  let authReply = '';
  let selectReply = '';
  try {
    if (request.password !== null) authReply = await connection.readLine(deadline);
    if (select) selectReply = await connection.readLine(deadline);
  } catch (err) {
    return ioFailure(err, 'reading', true);
  }
  let targetError: string | null = null;
  const deleted: Buffer[] = [];
  let failure: Attempt | null = null;
  for (let j = 0; j < sent.length; j++) {
    let line: string;
    try {
      line = await connection.readLine(deadline);
    } catch (err) {
      // Retried only when nothing was processed: no reply read, no key deleted.
      failure = ioFailure(err, 'reading', j === 0 && targetError === null);
      break;
    }
    const failed = [authReply, selectReply, line].find((l) => l.startsWith('-'));
    if (failed !== undefined) {
      targetError ??= failed.slice(1);
      connection.lastDb = -1;
    } else if (!request.copy) {
      deleteMigrated(ctx, sent[j]!);
      deleted.push(sent[j]!);
    }
  }
  // The keys the target acknowledged are gone here, whatever happened next: their DEL propagates.
  propagateDeletion(ctx, deleted);
  if (targetError !== null) return { reply: new ErrorReply(Errors.migrateTargetError(targetError)) };
  if (failure !== null) return failure;
  connection.lastDb = request.db;
  return { reply: OK };
}

function ioFailure(err: unknown, ioError: 'writing' | 'reading', mayRetry: boolean): Attempt {
  if (!(err instanceof MigrateIoError)) throw err;
  return { ioError, retry: mayRetry && !err.timedOut };
}

/** The local key goes once the target has it, as dbDelete + signalModifiedKey + the "del" event. */
function deleteMigrated(ctx: Context, key: Buffer): void {
  const name = keyOf(key);
  if (!ctx.db.delete(name)) return;
  const { instance } = ctx;
  instance.dirty++;
  instance.keyspace.signalModified(ctx.db.index, name);
  instance.keyspaceEvents.notify(NOTIFY_GENERIC, 'del', name, ctx.db.index);
}

/** MIGRATE reaches the AOF and replicas as a DEL of the keys moved (Redis rewrites its argv so). */
function propagateDeletion(ctx: Context, keys: Buffer[]): void {
  const { instance } = ctx;
  if (keys.length === 0 || !instance.effects.active) return;
  instance.effects.append([{ db: ctx.db.index, argv: ['DEL', ...keys] }]);
}

export const commands: CommandSpec[] = [
  command('migrate', -6, ['write', 'movablekeys'], { first: 3, last: 3, step: 1 }, migrate, {
    keys: keyPositions,
    categories: ['keyspace', 'write', 'slow', 'dangerous'],
    summary: 'Atomically transfer a key from a Redis instance to another one.',
    since: '2.6.0',
    group: 'generic',
  }),
];

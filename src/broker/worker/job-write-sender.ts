// How a worker sends its job writes (job-writes.ts) and the MULTI of its acknowledgements
// (acker.ts): as commands (a pipeline, a MULTI), or, on Redis and Valkey, as one script call
// that runs the same commands. A fast job's start, completion and acknowledgement are five
// commands and about fifty arguments (its record, two events, the completed index, XACK); sent
// as commands, each costs the client a command object, its arguments' encoding and a reply to
// decode, which made a worker with job records 3-4x slower than one without (bench/broker.js).
// The script takes the batch as one JSON text, which the client writes in one go and Redis
// decodes with its built-in cjson, and runs each command as EXEC would: in order, with nothing
// between them, a failing command (WRONGTYPE, OOM) not stopping the others, and the first
// failure the reply.
//
// Sluice (embedded or `sluice server`) and servers with XADD IDMP (Redis 8.6) keep commands:
// sluice's Lua costs more than its MULTI. A batch the JSON cannot carry as the commands would
// (lua-json.ts: bytes, lone surrogates, a command too long to unpack) goes as commands too.
import { createHash } from 'node:crypto';
import type { Arg, Connection } from '../../client/connection.js';
import { TransactionError } from '../../client/connection.js';
import { errorMessage, isNoScript } from '../replies.js';
import { probeStreamFeatures, type StreamFeatures } from '../stream-features.js';
import { rowsJson } from '../lua-json.js';

/** KEYS[1]: the stream (the batch's slot; every key written is in it). ARGV[1]: JSON [[command, arg…], …]. */
export const JOB_WRITES_SCRIPT = `local commands = cjson.decode(ARGV[1])
local failed
for i = 1, #commands do
  local reply = redis.pcall(unpack(commands[i]))
  if failed == nil and type(reply) == 'table' and reply.err then failed = reply.err end
end
if failed then return redis.error_reply(failed) end
return #commands`;

export const JOB_WRITES_SHA1 = createHash('sha1').update(JOB_WRITES_SCRIPT).digest('hex');

export class JobWriteSender {
  /** Whether batches go as the script (decided by probe()). */
  private scripted = false;

  constructor(
    private readonly conn: Connection,
    private readonly stream: string,
  ) {}

  get usesScript(): boolean {
    return this.scripted;
  }

  /**
   * Decides how batches go: the script where the server is Redis or Valkey (no XADD IDMP) and
   * runs it, by its text and by its SHA1 (an empty batch); commands otherwise. `probed`: the
   * server's features, when the worker probed them (not the ones an option imposed).
   */
  async probe(probed?: StreamFeatures): Promise<void> {
    this.scripted = false;
    try {
      if ((probed ?? (await probeStreamFeatures(this.conn))).idmp) return;
      // Both ways a batch may go (an ACL may allow one and not the other).
      this.scripted =
        Number(await this.conn.call('EVAL', JOB_WRITES_SCRIPT, 1, this.stream, '[]')) === 0 &&
        Number(await this.conn.call('EVALSHA', JOB_WRITES_SHA1, 1, this.stream, '[]')) === 0;
    } catch {
      // No scripting, no cjson, or a proxy that refuses EVAL: commands it is.
    }
  }

  /** Applies the writes as one transaction; rejects with the first failure (replies are not read). */
  async atomic(commands: Arg[][]): Promise<void> {
    if (commands.length === 0) return;
    const json = this.scripted ? rowsJson(commands) : null;
    if (json === null) return void (await this.conn.multi(commands));
    // As a MULTI's would: a TransactionError with the first failure.
    await this.runScript(json).catch((err: unknown) => {
      throw new TransactionError(errorMessage(err));
    });
  }

  /** Applies writes that need no transaction; rejects with the first failure. */
  async pipelined(commands: Arg[][]): Promise<void> {
    if (commands.length === 0) return;
    const json = this.scripted && commands.length > 1 ? rowsJson(commands) : null;
    if (json !== null) return this.runScript(json);
    const replies = commands.length === 1 ? [await this.conn.call(...commands[0]!)] : await this.conn.pipeline(commands);
    const failed = replies.find((r) => r instanceof Error);
    if (failed) throw failed;
  }

  private async runScript(json: string): Promise<void> {
    try {
      await this.conn.call('EVALSHA', JOB_WRITES_SHA1, 1, this.stream, json);
    } catch (err) {
      // A restarted server (or another cluster node) lost the script: NOSCRIPT ran nothing.
      if (!isNoScript(err)) throw err;
      await this.conn.call('EVAL', JOB_WRITES_SCRIPT, 1, this.stream, json);
    }
  }
}

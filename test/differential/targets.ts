// The two servers under comparison: a real redis-server on a free loopback port, and sluice's
// TCP server (or, with SLUICE_DIFF_TARGET=embedded, the in-process instance behind the same
// encoder, to tell an engine difference from a transport one). Both are driven through
// `RawConnection`s that send RESP commands and return the exact reply bytes.
import * as net from 'node:net';
import { after, before } from 'node:test';
import { encodeCommand, encodeReply } from '../../src/resp/encoder.js';
import { startServer } from '../../src/server/server.js';
import { startRedisServer } from '../support/processes.js';
import { frameOf, ReplyParser } from '../support/reply-parser.js';
import type { Frame } from './frames.js';
import { callRaw, sessionClient } from '../../src/client/embedded-internals.js';

export interface RawConnection {
  /**
   * Sends one command and resolves to its reply frame; with `replies` other than 1, to a frame
   * of type "several" whose children are that many frames in a row.
   */
  command(argv: string[], replies?: number): Promise<Frame>;
  close(): void;
}

export interface Target {
  readonly name: string;
  connect(): Promise<RawConnection>;
  stop(): Promise<void>;
}

/** A socket connection: commands are sent one at a time; the ReplyParser splits the replies into frames. */
export async function connectSocket(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  const socket = net.createConnection({ port, host });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const parser = new ReplyParser({ frames: true });
  const waiting: Array<{ resolve: (f: Frame) => void; reject: (e: Error) => void; frames: Frame[]; expected: number }> = [];
  let failure: Error | null = null;
  const failAll = (err: Error) => {
    failure = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  socket.on('data', (chunk) => {
    parser.push(chunk);
    for (let r = parser.next(); r !== undefined; r = parser.next()) {
      const f = r.frame!;
      const w = waiting[0];
      if (w === undefined) {
        failAll(new Error(`unsolicited reply ${f.raw.toString('latin1')}`));
        return;
      }
      w.frames.push(f);
      if (w.frames.length < w.expected) continue;
      waiting.shift();
      w.resolve(w.expected === 1 ? f : several(w.frames));
    }
  });
  socket.on('error', (err) => failAll(err));
  socket.on('close', () => failAll(new Error(`connection to port ${port} closed`)));
  return {
    command(argv, replies = 1) {
      if (failure !== null) return Promise.reject(failure);
      socket.write(encodeCommand(argv));
      if (replies === 0) return Promise.resolve(several([]));
      return new Promise<Frame>((resolve, reject) => {
        waiting.push({ resolve, reject, frames: [], expected: replies });
      });
    },
    close() {
      socket.removeAllListeners('close');
      socket.destroy();
    },
  };
}

/** Several replies to one command, kept together. */
function several(frames: Frame[]): Frame {
  return { type: 'several', raw: Buffer.concat(frames.map((f) => f.raw)), children: frames };
}

/**
 * Starts `redis-server` on a free port. Rejects (the test then fails, it does not skip) when
 * the binary is missing or the server does not come up.
 */
export async function startRedis(binary = process.env.SLUICE_REDIS_SERVER ?? 'redis-server'): Promise<Target> {
  const server = await startRedisServer(['--daemonize', 'no'], binary).catch((err: Error) => {
    throw new Error(`${err.message} (is redis-server installed? apt-get install redis-server)`);
  });
  return {
    name: `redis-server:${server.port}`,
    connect: () => connectSocket(server.port),
    stop: () => server.stop(),
  };
}

export interface Targets {
  readonly redis: Target;
  readonly sluice: Target;
}

/** Starts both servers before the file's tests and stops them after; read them in tests. */
export function useTargets(): Targets {
  const targets = {} as { redis: Target; sluice: Target };
  before(async () => {
    // One after the other, so a failing redis-server start still leaves sluice to stop in after().
    targets.sluice = await startSluice();
    targets.redis = await startRedis();
  });
  after(async () => {
    await Promise.all([targets.redis?.stop(), targets.sluice?.stop()]);
  });
  return targets;
}

/** Starts sluice's TCP server on a free port (or the embedded instance, see above). */
export async function startSluice(): Promise<Target> {
  if (process.env.SLUICE_DIFF_TARGET === 'embedded') return startEmbeddedSluice();
  const server = await startServer({ port: 0, bind: '127.0.0.1' });
  return {
    name: `sluice:${server.port}`,
    connect: () => connectSocket(server.port),
    stop: () => server.close(),
  };
}

/** The in-process instance, its replies encoded as the server would send them. */
export async function startEmbeddedSluice(): Promise<Target> {
  const { open } = await import('../../src/client/embedded.js');
  const db = await open();
  return {
    name: 'sluice:embedded',
    async connect() {
      const session = db.session();
      return {
        async command(argv) {
          const reply = await callRaw(session, ...argv);
          const raw = encodeReply(reply, sessionClient(session).resp);
          return frameOf(raw);
        },
        close: () => session.close(),
      };
    },
    stop: () => db.close(),
  };
}

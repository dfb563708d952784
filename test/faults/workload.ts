// The fault-injection suite's workload: writer clients that record exactly which writes the
// server acknowledged, and a check that every acknowledged write is in a (restarted) server.
// Randomness is seeded (FAULT_SEED, printed) so a failing run can be replayed.
import assert from 'node:assert/strict';
import { RespClient, type Wire } from '../server/resp-client.js';

/** mulberry32: a small seeded PRNG. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedFromEnv(): number {
  const seed = process.env['FAULT_SEED'] !== undefined ? Number(process.env['FAULT_SEED']) : Math.floor(Math.random() * 2 ** 31);
  console.error(`# FAULT_SEED=${seed}`);
  return seed;
}

/** What the writers saw acknowledged. */
export class Acks {
  /** key -> value of every acknowledged SET (the last one per key wins: keys are unique). */
  readonly sets = new Map<string, string>();
  /** stream -> ids of every acknowledged XADD. */
  readonly entries = new Map<string, Set<string>>();
  /** Replies that were neither an acknowledgement nor an error we expect (must stay empty). */
  readonly unexpected: string[] = [];
  /** Error replies seen (MISCONF while the disk fails), by text. */
  readonly errors = new Map<string, number>();

  get total(): number {
    let n = this.sets.size;
    for (const ids of this.entries.values()) n += ids.size;
    return n;
  }
}

export interface WriterOptions {
  /** Bytes of padding in each value (bigger: the disk fills sooner). */
  valueBytes?: number;
  /** Error texts allowed as replies (anything else is recorded as unexpected). */
  allowedErrors?: RegExp;
  /** A reply slower than this is recorded as unexpected (ms). */
  maxReplyMs?: number;
}

/**
 * One writer: alternates SET of a fresh key and XADD to one of three streams until `stop()` or
 * until the server closes the connection. Every command either gets a reply or sees the
 * socket closed; a reply that never comes would hang the test (and is caught by maxReplyMs).
 */
export async function writer(port: number, name: string, acks: Acks, shouldStop: () => boolean, options: WriterOptions = {}): Promise<number> {
  let c: RespClient;
  try {
    c = await RespClient.connect(port);
  } catch {
    return 0;
  }
  const pad = 'p'.repeat(options.valueBytes ?? 16);
  const maxReplyMs = options.maxReplyMs ?? 5000;
  let n = 0;
  try {
    while (!shouldStop()) {
      const i = n++;
      const stream = `stream:${i % 3}`;
      const isSet = i % 2 === 0;
      const argv = isSet ? ['SET', `k:${name}:${i}`, `${name}-${i}-${pad}`] : ['XADD', stream, '*', 'w', name, 'i', String(i), 'pad', pad];
      const started = Date.now();
      let reply: Wire;
      try {
        reply = await c.call(...argv);
      } catch {
        break; // the connection closed: this command's outcome is unknown, which is allowed
      }
      if (Date.now() - started > maxReplyMs) acks.unexpected.push(`${argv[0]} answered after ${Date.now() - started} ms`);
      if (reply.t === 'error') {
        acks.errors.set(reply.v, (acks.errors.get(reply.v) ?? 0) + 1);
        if (!options.allowedErrors?.test(reply.v)) acks.unexpected.push(reply.v);
        continue;
      }
      if (isSet && reply.t === 'simple' && reply.v === 'OK') acks.sets.set(argv[1]!, argv[2]!);
      else if (!isSet && reply.t === 'bulk' && reply.v !== null) {
        let ids = acks.entries.get(stream);
        if (ids === undefined) acks.entries.set(stream, (ids = new Set()));
        ids.add(reply.v);
      } else acks.unexpected.push(JSON.stringify(reply));
    }
  } finally {
    c.close();
  }
  return n;
}

/** Asserts that the server at `port` holds every acknowledged write. */
export async function assertAllAcked(port: number, acks: Acks, context: string): Promise<void> {
  const c = await RespClient.connect(port);
  try {
    const keys = [...acks.sets.keys()];
    for (let i = 0; i < keys.length; i += 500) {
      const slice = keys.slice(i, i + 500);
      const r = await c.call('MGET', ...slice);
      const values = (r as { v: Array<{ v: string | null }> }).v.map((x) => x.v);
      slice.forEach((k, j) => assert.equal(values[j], acks.sets.get(k), `${context}: acknowledged SET ${k} lost`));
    }
    for (const [stream, ids] of acks.entries) {
      const r = await c.call('XRANGE', stream, '-', '+');
      const present = new Set((r as { v: Array<{ v: Array<{ v: string }> }> }).v.map((e) => e.v[0]!.v));
      for (const id of ids) assert.ok(present.has(id), `${context}: acknowledged XADD ${stream} ${id} lost`);
    }
  } finally {
    c.close();
  }
}

// The deterministic forms the consumer-group commands propagate instead of themselves
// (Redis's streamPropagateXCLAIM, streamPropagateGroupID, streamPropagateConsumerCreation).
import type { Consumer, ConsumerGroup } from '../../engine/consumer-group.js';
import type { ClaimEffect } from '../../engine/group-claim.js';
import { formatId } from '../../engine/stream-id.js';
import type { Context } from '../types.js';

/**
 * streamPropagateXCLAIM: the deterministic form of one PEL change. `lastId` is the group's
 * last id at the time of the change (XREADGROUP moves it entry by entry).
 */
export function xclaimArgv(key: Buffer, g: ConsumerGroup, e: ClaimEffect, lastId = g.lastId): Array<Buffer | string> {
  return [
    'XCLAIM', key, g.name, e.consumer, '0', formatId(e.id),
    'TIME', String(e.deliveryTime), 'RETRYCOUNT', String(e.deliveryCount),
    'FORCE', 'JUSTID', 'LASTID', formatId(lastId),
  ];
}

/** streamPropagateGroupID. */
export function setIdArgv(key: Buffer, g: ConsumerGroup): Array<Buffer | string> {
  return ['XGROUP', 'SETID', key, g.name, formatId(g.lastId), 'ENTRIESREAD', String(g.entriesRead)];
}

/** streamPropagateConsumerCreation. */
export function createConsumerArgv(key: Buffer, g: ConsumerGroup, c: Consumer): Array<Buffer | string> {
  return ['XGROUP', 'CREATECONSUMER', key, g.name, c.name];
}

/**
 * Commands that propagate only explicit effects: when nothing was propagated, the command
 * itself must not be logged either, even if it changed state (history delivery counts).
 */
export class Propagation {
  count = 0;
  constructor(private readonly ctx: Context) {}
  add(argv: Array<Buffer | string>): void {
    this.ctx.propagate(argv);
    this.count++;
  }
  /** Propagates each claim of a command (XCLAIM, XAUTOCLAIM), each one a change. */
  addClaims(key: Buffer, g: ConsumerGroup, effects: ClaimEffect[]): void {
    for (const e of effects) {
      this.add(xclaimArgv(key, g, e));
      this.ctx.addDirty(1);
    }
  }
  finish(): void {
    if (this.count === 0) this.ctx.preventPropagation();
  }
}

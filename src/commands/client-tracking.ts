// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (Redis 7.0's clientCommand): parsing,
// the checks in Redis's order with its error texts, and the replies. The table and the
// invalidation messages are in tracking.ts.
import { Buffer } from 'node:buffer';
import { MapReply, OK, type Reply, SetReply, fail } from '../resp/reply.js';
import { Errors } from '../resp/errors.js';
import { int64Arg, isKeyword } from './args.js';
import type { Context } from './types.js';

/** CLIENT TRACKING on|off [REDIRECT id] [BCAST] [PREFIX p]... [OPTIN] [OPTOUT] [NOLOOP] */
export function clientTracking(ctx: Context, argv: Buffer[]): Reply {
  const { client, instance } = ctx;
  let redirect = 0;
  let bcast = false;
  let optin = false;
  let optout = false;
  let noloop = false;
  const prefixes: string[] = [];
  // Options are parsed (and a redirect checked) before ON/OFF is looked at, as in Redis.
  for (let j = 3; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    const arg = argv[j];
    if (isKeyword(arg, 'redirect') && more > 0) {
      j++;
      if (redirect !== 0) fail(Errors.trackingOneRedirect);
      const id = int64Arg(argv[j]!);
      if (id <= 0n || id > BigInt(Number.MAX_SAFE_INTEGER) || !instance.clients.has(Number(id))) fail(Errors.trackingNoRedirectClient);
      redirect = Number(id);
    } else if (isKeyword(arg, 'bcast')) bcast = true;
    else if (isKeyword(arg, 'optin')) optin = true;
    else if (isKeyword(arg, 'optout')) optout = true;
    else if (isKeyword(arg, 'noloop')) noloop = true;
    else if (isKeyword(arg, 'prefix') && more > 0) {
      j++;
      prefixes.push(argv[j]!.toString('latin1'));
    } else fail(Errors.syntax);
  }
  if (isKeyword(argv[2], 'on')) {
    if (!bcast && prefixes.length > 0) fail(Errors.trackingPrefixNeedsBcast);
    const state = client.tracking;
    if (state !== null && state.bcast !== bcast) fail(Errors.trackingBcastSwitch);
    if (bcast && (optin || optout)) fail(Errors.trackingOptBcast);
    if (optin && optout) fail(Errors.trackingOptinAndOptout);
    if (state !== null && ((optin && state.optout) || (optout && state.optin))) fail(Errors.trackingOptSwitch);
    if (bcast) {
      const collision = instance.tracking.prefixCollision(client, prefixes);
      if (collision !== null) {
        fail(
          collision.existing
            ? Errors.trackingPrefixOverlapsExisting(collision.prefix, collision.other)
            : Errors.trackingPrefixOverlapsGiven(collision.prefix, collision.other),
        );
      }
    }
    instance.tracking.enable(client, { redirect, bcast, optin, optout, noloop, prefixes });
  } else if (isKeyword(argv[2], 'off')) {
    instance.tracking.disable(client);
  } else {
    fail(Errors.syntax);
  }
  return OK;
}

/** CLIENT CACHING yes|no: the next command (or transaction) is cached, or not, in OPTIN/OPTOUT mode. */
export function clientCaching(ctx: Context, argv: Buffer[]): Reply {
  const state = ctx.client.tracking;
  if (state === null) fail(Errors.cachingNotTracking);
  if (isKeyword(argv[2], 'yes')) {
    if (!state.optin) fail(Errors.cachingYesNeedsOptin);
  } else if (isKeyword(argv[2], 'no')) {
    if (!state.optout) fail(Errors.cachingNoNeedsOptout);
  } else {
    fail(Errors.syntax);
  }
  state.caching = true;
  return OK;
}

/** CLIENT GETREDIR: the redirect id (0 for none) while tracking, else -1. */
export function clientGetRedir(ctx: Context): Reply {
  return ctx.client.tracking?.redirect ?? -1;
}

/** CLIENT TRACKINGINFO: flags (a set), redirect and prefixes. */
export function clientTrackingInfo(ctx: Context): Reply {
  const state = ctx.client.tracking;
  const flags: string[] = [state === null ? 'off' : 'on'];
  if (state !== null) {
    if (state.bcast) flags.push('bcast');
    if (state.optin) flags.push('optin');
    if (state.optin && state.caching) flags.push('caching-yes');
    if (state.optout) flags.push('optout');
    if (state.optout && state.caching) flags.push('caching-no');
    if (state.noloop) flags.push('noloop');
    if (state.brokenRedirect) flags.push('broken_redirect');
  }
  // Redis lists them from a radix tree: in byte order.
  const prefixes = state === null ? [] : [...state.prefixes].sort().map((p) => Buffer.from(p, 'latin1'));
  return new MapReply([
    ['flags', new SetReply(flags)],
    ['redirect', state === null ? -1 : state.redirect],
    ['prefixes', prefixes],
  ]);
}

// Who may do what. With a token set, every API call must carry it (`Authorization: Bearer T`):
// the views show payloads and the actions delete data. Actions are POST only and must be JSON,
// which a cross-site HTML form cannot send and a cross-site fetch cannot send without a CORS
// preflight we never grant; a request whose Origin is another site is refused outright.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { bearerToken, tokenMatches } from '../server/bearer-token.js';
import { HttpError } from './http.js';


/** Throws 401 when a token is set and the request does not carry it. */
export function requireToken(req: IncomingMessage, token: string | undefined): void {
  if (token === undefined) return;
  const given = bearerToken(req);
  if (given === null || !tokenMatches(token, given)) throw new HttpError(401, 'token required: send Authorization: Bearer <token>');
}

/** Refuses a request sent by a page of another origin (cross-site requests, DNS rebinding). */
export function requireSameOrigin(req: IncomingMessage): void {
  const origin = req.headers['origin'];
  if (origin === undefined || origin === 'null') return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new HttpError(403, 'bad Origin header');
  }
  if (host !== req.headers['host']) throw new HttpError(403, `cross-origin request from ${origin} refused`);
}

/**
 * Without a token the dashboard listens on loopback only, and then only names of this machine
 * may be in the Host header: a site whose DNS name was rebound to 127.0.0.1 is refused (its
 * page would otherwise be same-origin with the dashboard in the browser's eyes).
 */
export function requireLoopbackHost(req: IncomingMessage): void {
  const host = req.headers['host'] ?? '';
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (!isLoopback(name)) throw new HttpError(403, `Host '${host}' refused: without a token the dashboard answers only to localhost / 127.0.0.1 / [::1]`);
}

/** Actions take a JSON body: a plain HTML form cannot post one. */
export function requireJson(req: IncomingMessage): void {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, 'actions take a JSON body (content-type: application/json)');
}

/** Whether an address to bind only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return /^::ffff:127\./.test(h);
}

/** The one-line reason not to start, or null: a non-loopback bind needs a token. */
export function bindRefusal(host: string, token: string | undefined): string | null {
  if (isLoopback(host) || (token !== undefined && token !== '')) return null;
  return `refusing to serve the dashboard on ${host} without --token: anyone who can reach it could read payloads and delete entries (set --token or bind 127.0.0.1)`;
}

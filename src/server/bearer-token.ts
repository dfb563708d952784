// Bearer tokens on the HTTP endpoints (metrics, dashboard): `Authorization: Bearer <token>`,
// compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Compares in constant time (over digests, so the lengths leak nothing either). */
export function tokenMatches(expected: string, given: string): boolean {
  return timingSafeEqual(digest(expected), digest(given));
}

/** The request's bearer token, or null without one. */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers['authorization'];
  if (typeof header !== 'string') return null;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}

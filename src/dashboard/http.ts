// HTTP plumbing shared by the dashboard's routes: JSON replies, JSON bodies, and errors that
// carry their status code, so a route throws and the handler answers.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error with the HTTP status to answer and a message meant for the operator. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Bodies of actions are small lists of ids: anything larger is refused rather than buffered. */
const MAX_BODY_BYTES = 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return; // already answered (a timeout), the late result is dropped
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: message });
}

/** Reads a JSON object body; an empty body is `{}`. */
export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HttpError(400, 'request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** A positive integer query parameter within [1, max], or the default when absent. */
export function countParam(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new HttpError(400, `${name} must be an integer from 1 to ${max}`);
  return n;
}

/** Stream ids as the API accepts them: `ms-seq` or `ms`. */
export function checkId(id: unknown, what = 'id'): string {
  if (typeof id !== 'string' || !/^\d+(-\d+)?$/.test(id)) throw new HttpError(400, `invalid ${what} ${JSON.stringify(id)}`);
  return id;
}

/** Maps a Redis error reply to a status: missing keys and groups are 404, the rest 400/502. */
export function redisErrorStatus(message: string): number {
  if (/^ERR no such key/i.test(message) || /^NOGROUP/.test(message)) return 404;
  if (/^WRONGTYPE/.test(message) || /^ERR (syntax|Invalid)/i.test(message)) return 400;
  if (/unknown command/i.test(message)) return 501;
  return 502;
}

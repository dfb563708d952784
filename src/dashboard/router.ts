// A small router: `METHOD /api/streams/:stream/entries` patterns matched segment by segment.
// Parameters are URL-decoded, so stream names with ':', '{', '}' or spaces travel as
// encodeURIComponent(name) in one segment.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http.js';

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
}

export type RouteHandler = (ctx: RouteContext) => Promise<void> | void;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

export class Router {
  private readonly routes: Route[] = [];

  get(pattern: string, handler: RouteHandler): this {
    return this.add('GET', pattern, handler);
  }

  post(pattern: string, handler: RouteHandler): this {
    return this.add('POST', pattern, handler);
  }

  private add(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method, segments: split(pattern), handler });
    return this;
  }

  /**
   * The route for a request: null when no pattern matches the path; a 405 HttpError when the path
   * exists under another method (a GET never reaches an action).
   */
  match(method: string, path: string): { handler: RouteHandler; params: Record<string, string> } | null {
    const parts = split(path);
    let otherMethod = false;
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (params === null) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { handler: route.handler, params };
      otherMethod = true;
    }
    if (otherMethod) throw new HttpError(405, `${method} not allowed on ${path}`);
    return null;
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(parts[i]!);
      } catch {
        throw new HttpError(400, `bad path segment ${parts[i]}`);
      }
    } else if (p !== parts[i]) {
      return null;
    }
  }
  return params;
}

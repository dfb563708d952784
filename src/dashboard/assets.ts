// The page and its static files (HTML, script, styles, uPlot), read from the assets folder
// next to this module: `npm run build` copies src/dashboard/assets and uPlot's dist files to
// dist/src/dashboard/assets, so they ship in the package. Read once, then served from memory.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'jobs.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'uPlot.iife.min.js': 'text/javascript; charset=utf-8',
  'uPlot.min.css': 'text/css; charset=utf-8',
};

/** The only files served: a fixed list, so no path ever reaches the file system from a URL. */
export const ASSET_NAMES = Object.keys(TYPES);

const ASSETS_DIR = new URL('./assets/', import.meta.url);

// Scripts and styles from this origin only; uPlot sizes its canvas through inline styles.
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const cache = new Map<string, Promise<Buffer>>();

function load(name: string): Promise<Buffer> {
  let file = cache.get(name);
  if (file === undefined) {
    file = readFile(new URL(name, ASSETS_DIR));
    file.catch(() => cache.delete(name)); // a missing file is retried after a rebuild
    cache.set(name, file);
  }
  return file;
}

/** Answers one asset; false when `name` is not one. */
export async function serveAsset(res: ServerResponse, name: string, head = false): Promise<boolean> {
  const type = TYPES[name];
  if (type === undefined) return false;
  let body: Buffer;
  try {
    body = await load(name);
  } catch {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`dashboard asset ${name} is missing: run npm run build\n`);
    return true;
  }
  res.writeHead(200, { 'content-type': type, 'content-length': body.length, 'cache-control': 'no-cache', ...SECURITY_HEADERS });
  res.end(head ? undefined : body);
  return true;
}

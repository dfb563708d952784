// Shared by the dashboard tests: run `sluice dashboard` as a real child process, call its JSON
// API, and drive Debian's system Chromium through playwright-core (no browser is downloaded).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { MAIN } from '../cli/helpers.js';

export interface DashboardProcess {
  url: string;
  stop(): Promise<void>;
}

/** Starts `sluice dashboard --url backend --port 0 ...args` and waits for its address line. */
export function startDashboardCli(backendUrl: string, args: string[] = []): Promise<DashboardProcess> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [MAIN, 'dashboard', '--url', backendUrl, '--port', '0', '--interval', '300', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = /^dashboard on (http:\/\/\S+)\n/m.exec(out);
      if (m) {
        child.removeAllListeners('exit');
        resolve({
          url: m[1]!,
          async stop() {
            if (child.exitCode !== null || child.signalCode !== null) return;
            const exited = once(child, 'exit');
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`sluice dashboard exited (${code}) before ready: ${out}`)));
  });
}

export interface ApiReply<T = unknown> {
  status: number;
  body: T;
}

export async function apiGet<T = unknown>(base: string, path: string, token?: string): Promise<ApiReply<T>> {
  const res = await fetch(`${base}/api/${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as T };
}

export async function apiPost<T = unknown>(base: string, path: string, body: unknown, token?: string): Promise<ApiReply<T>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const res = await fetch(`${base}/api/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Headless system Chromium with a fresh profile directory, removed again by close(). */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'sluice-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

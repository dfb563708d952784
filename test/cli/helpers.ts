// Shared by the CLI tests: run `sluice` as a real child process, start a `sluice server` child
// (with its metrics endpoint) and a real redis-server on free ports, parse Prometheus text.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI_MAIN, spawnUntil, startRedisServer } from '../support/processes.js';

export { CLI_MAIN as MAIN, freePort } from '../support/processes.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node dist/src/cli/main.js ...args` to completion. */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

export interface Target {
  name: string;
  url: string;
  /** The server's Prometheus endpoint (sluice server only). */
  metricsUrl?: string;
  stop(): Promise<void>;
}

export async function startSluice(): Promise<Target> {
  const server = await spawnUntil(process.execPath, [CLI_MAIN, 'server', '--port', '0', '--metrics-port', '0'], /metrics on (\S+)\n/, { readyOn: 'both' });
  const text = server.stdout() + server.stderr();
  const port = /ready on 127\.0\.0\.1:(\d+)/.exec(text)![1]!;
  const metricsUrl = /metrics on (\S+)\n/.exec(text)![1]!;
  return { name: 'sluice server', url: `redis://127.0.0.1:${port}`, metricsUrl, stop: () => server.stop() };
}

export async function startRedis(): Promise<Target> {
  const server = await startRedisServer();
  return { name: 'redis-server', url: `redis://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (samples only; HELP/TYPE lines skipped). */
export function parsePrometheus(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample with this name and these labels (undefined if absent). */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return parsePrometheus(await res.text());
}

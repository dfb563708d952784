// Who may scrape `sluice server --metrics-port`: the listener binds to loopback whatever --bind
// says (--metrics-bind to change it); with a password (the requirepass, or --metrics-token)
// every scrape must carry it as a bearer token; without one, protected mode answers only
// loopback peers, as it does RESP clients. Scrapes from another host come from a network
// namespace (or the source address 127.0.0.5, see test/server/foreign-host.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CLI_MAIN, spawnUntil, type Spawned } from '../support/processes.js';
import { foreignHost, type ForeignHost } from '../server/foreign-host.js';

let host: ForeignHost;
const started: Spawned[] = [];

before(() => {
  host = foreignHost();
});

after(async () => {
  await Promise.all(started.map((s) => s.stop()));
  host.destroy();
});

/** `sluice server --bind 0.0.0.0 --metrics-port 0 ...flags`; the metrics port it printed. */
async function server(...flags: string[]): Promise<{ metricsHost: string; metricsPort: number }> {
  const s = await spawnUntil(process.execPath, [CLI_MAIN, 'server', '--port', '0', '--bind', '0.0.0.0', '--metrics-port', '0', ...flags], /metrics on (\S+)\n/, { readyOn: 'both' });
  started.push(s);
  const url = new URL(/metrics on (\S+)\n/.exec(s.stdout() + s.stderr())![1]!);
  return { metricsHost: url.hostname, metricsPort: Number(url.port) };
}

const request = (token?: string) =>
  `GET /metrics HTTP/1.1\r\nHost: sluice\r\n${token === undefined ? '' : `Authorization: Bearer ${token}\r\n`}Connection: close\r\n\r\n`;

/** The status code a scrape from the other host gets, or 0 when nothing answers. */
async function foreignStatus(port: number, token?: string): Promise<number> {
  const { data } = await host.probe(port, request(token), 1000);
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(data.toString('latin1'))?.[1] ?? 0);
}

async function localStatus(port: number, token?: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

test('metrics listen on loopback even with --bind 0.0.0.0: another host gets no answer', async () => {
  console.error(`# foreign scrapes via ${host.method}`);
  const { metricsHost, metricsPort } = await server();
  assert.equal(metricsHost, '127.0.0.1');
  assert.equal(await localStatus(metricsPort), 200);
  // Through a namespace the port is closed on the other address; from 127.0.0.5 the loopback
  // listener is reached, and protected mode answers it 403.
  assert.notEqual(await foreignStatus(metricsPort), 200);
});

test('--metrics-bind 0.0.0.0 without a password: protected mode answers loopback only; --protected-mode no opens it', async () => {
  const { metricsPort } = await server('--metrics-bind', '0.0.0.0');
  assert.equal(await foreignStatus(metricsPort), 403);
  assert.equal(await localStatus(metricsPort), 200);
  const open = await server('--metrics-bind', '0.0.0.0', '--protected-mode', 'no');
  assert.equal(await foreignStatus(open.metricsPort), 200);
});

test('with --requirepass every scrape needs it as a bearer token; --metrics-token replaces it', async () => {
  const { metricsPort } = await server('--metrics-bind', '0.0.0.0', '--requirepass', 'secret');
  assert.equal(await foreignStatus(metricsPort), 401);
  assert.equal(await foreignStatus(metricsPort, 'wrong'), 401);
  assert.equal(await foreignStatus(metricsPort, 'secret'), 200);
  assert.equal(await localStatus(metricsPort), 401);
  assert.equal(await localStatus(metricsPort, 'secret'), 200);

  const tokened = await server('--metrics-bind', '0.0.0.0', '--requirepass', 'secret', '--metrics-token', 'scraper');
  assert.equal(await foreignStatus(tokened.metricsPort, 'secret'), 401);
  assert.equal(await foreignStatus(tokened.metricsPort, 'scraper'), 200);
  // A token alone guards them too, protected mode or not.
  const tokenOnly = await server('--metrics-bind', '0.0.0.0', '--metrics-token', 'scraper', '--protected-mode', 'no');
  assert.equal(await foreignStatus(tokenOnly.metricsPort), 401);
  assert.equal(await foreignStatus(tokenOnly.metricsPort, 'scraper'), 200);
});

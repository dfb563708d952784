// Redis 7's protected configs, side by side with redis-server 7.0.15: CONFIG SET dir and
// dbfilename (with SAVE they write a file anywhere) are refused unless enable-protected-configs
// allows them: yes for every client, local for loopback ones only (a foreign client comes from
// a network namespace or 127.0.0.5, see foreign-host.ts). Allowed, they are validated as Redis
// validates them and SAVE writes where they say.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { encodeCommand } from '../../src/resp/encoder.js';
import { foreignHost, type ForeignHost } from './foreign-host.js';
import { type ServerProcess, startRedisProcess, startSluiceProcess, stopAll } from './processes.js';
import { RespClient } from './resp-client.js';

let host: ForeignHost;
const dirs: string[] = [];

before(() => {
  host = foreignHost();
});

after(async () => {
  await stopAll();
  host.destroy();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const show = (w: unknown): string => JSON.stringify(w, (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

async function transcript(server: ServerProcess, commands: string[][]): Promise<string[]> {
  const c = await RespClient.connect(server.port);
  const out: string[] = [];
  for (const argv of commands) out.push(show(await c.call(...argv)));
  c.close();
  return out;
}

const both = async (...flags: string[]) => [await startSluiceProcess(...flags), await startRedisProcess(...flags)] as const;

test('by default CONFIG SET dir and dbfilename are refused with Redis\'s text; enable-protected-configs is immutable', async () => {
  const commands = [
    ['CONFIG', 'GET', 'enable-protected-configs'],
    ['CONFIG', 'SET', 'dbfilename', 'x.rdb'],
    ['CONFIG', 'SET', 'DIR', '/tmp'],
    ['CONFIG', 'SET', 'enable-protected-configs', 'yes'],
    // Names are checked before values: the protected one answers, not the bad policy.
    ['CONFIG', 'SET', 'maxmemory-policy', 'bogus', 'dbfilename', 'x.rdb'],
    ['CONFIG', 'SET', 'dbfilename', 'x.rdb', 'nosuch', 'v'],
    ['CONFIG', 'GET', 'dbfilename'],
  ];
  const [sluice, redis] = await both();
  const ours = await transcript(sluice, commands);
  assert.deepEqual(ours, await transcript(redis, commands));
  assert.equal(ours[1], show({ t: 'error', v: "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config" }));
});

test('enable-protected-configs yes: dir and dbfilename validated as Redis does, and SAVE writes there', async () => {
  const start = mkdtempSync(join(tmpdir(), 'protected-start-'));
  dirs.push(start);
  const [sluice, redis] = await both('--enable-protected-configs', 'yes', '--dir', start, '--appendonly', 'no');
  for (const server of [sluice, redis]) {
    const dir = mkdtempSync(join(tmpdir(), `protected-${server.name}-`));
    dirs.push(dir);
    const replies = await transcript(server, [
      ['CONFIG', 'SET', 'dir', join(dir, 'missing')],
      ['CONFIG', 'SET', 'dir', '/etc/hostname'],
      ['CONFIG', 'SET', 'dbfilename', 'a/b.rdb'],
      ['CONFIG', 'SET', 'dir', `${dir}/`, 'dbfilename', 'moved.rdb'],
      ['CONFIG', 'GET', 'dir'],
      ['SET', 'k', 'v'],
      ['SAVE'],
    ]);
    assert.deepEqual(replies, [
      show({ t: 'error', v: "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory" }),
      show({ t: 'error', v: "ERR CONFIG SET failed (possibly related to argument 'dir') - Not a directory" }),
      show({ t: 'error', v: "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't be a path, just a filename" }),
      show({ t: 'simple', v: 'OK' }),
      show({ t: 'array', v: [{ t: 'bulk', v: 'dir' }, { t: 'bulk', v: dir }] }),
      show({ t: 'simple', v: 'OK' }),
      show({ t: 'simple', v: 'OK' }),
    ], server.name);
    assert.ok(existsSync(join(dir, 'moved.rdb')), `${server.name} saved in the new dir`);
  }
});

test('enable-protected-configs local: loopback clients may set them, a foreign client may not', async () => {
  console.error(`# foreign client via ${host.method}`);
  const request = Buffer.concat([encodeCommand(['AUTH', 'secret']), encodeCommand(['CONFIG', 'SET', 'dbfilename', 'x.rdb'])]).toString('latin1');
  const [sluice, redis] = await both('--enable-protected-configs', 'local', '--bind', '0.0.0.0', '--requirepass', 'secret');
  for (const server of [sluice, redis]) {
    const foreign = await host.probe(server.port, request);
    assert.equal(foreign.data.toString('latin1'), "+OK\r\n-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config\r\n", server.name);
    const local = await RespClient.connect(server.port);
    await local.call('AUTH', 'secret');
    assert.deepEqual(await local.call('CONFIG', 'SET', 'dbfilename', 'x.rdb'), { t: 'simple', v: 'OK' }, server.name);
    local.close();
  }
});

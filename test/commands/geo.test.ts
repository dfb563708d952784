// GEO commands through the embedded client: what they propagate (GEOADD as the ZADD Redis
// rewrites it to, the STORE forms as themselves, only when something changed), RESP3's
// coordinate doubles, and the math underneath: libm.ts's sin/cos/asin against correctly
// rounded values (mpmath, 200 bits) at arguments where V8's Math is off by an ulp, the geohash
// encoding and its printing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { open } from '../../src/client/embedded.js';
import { callRaw } from '../../src/client/embedded-internals.js';
import { formatDistance, formatF, formatHumanDouble, geohashString, scoreOf } from '../../src/engine/geohash.js';
import { asin, cos, sin } from '../../src/engine/libm.js';
import { Encoder } from '../../src/resp/encoder.js';
import type { Reply } from '../../src/resp/reply.js';
import { recordPropagation } from './keys-helpers.js';

test('what is propagated: GEOADD as ZADD with the scores, the STORE forms as given, no-ops nothing', async () => {
  const db = await open();
  const log = recordPropagation(db);
  await db.call('GEOADD', 'g', 'CH', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania');
  await db.call('GEOADD', 'g', 'NX', '13.361389', '38.115556', 'Palermo');
  await db.call('GEOADD', 'g', '13.361389', '38.115556', 'Palermo');
  // The last STORE/STOREDIST wins: e is written, d is not.
  await db.call('GEORADIUS', 'g', '15', '37', '200', 'km', 'STORE', 'd', 'STOREDIST', 'e');
  await db.call('GEORADIUS', 'g', '15', '37', '200', 'km', 'STORE', 'd');
  await db.call('GEORADIUS', 'g', '15', '37', '200', 'km', 'STORE', 'd');
  // An empty result deletes d (logged), then finds nothing to delete (not logged).
  await db.call('GEORADIUS', 'g', '15', '37', '0', 'km', 'STORE', 'd');
  await db.call('GEORADIUS', 'g', '15', '37', '0', 'km', 'STORE', 'd');
  await db.call('GEORADIUS', 'nokey', '15', '37', '0', 'km', 'STORE', 'e');
  await db.call('GEOSEARCHSTORE', 'x', 'g', 'FROMMEMBER', 'Palermo', 'BYRADIUS', '1000', 'km', 'STOREDIST');
  await db.call('GEOSEARCH', 'g', 'FROMMEMBER', 'Palermo', 'BYRADIUS', '1000', 'km');
  assert.deepEqual(log, [
    'zadd g CH 3479099956230698 Palermo 3479447370796909 Catania',
    'GEORADIUS g 15 37 200 km STORE d STOREDIST e',
    'GEORADIUS g 15 37 200 km STORE d',
    'GEORADIUS g 15 37 200 km STORE d',
    'GEORADIUS g 15 37 0 km STORE d',
    'GEORADIUS nokey 15 37 0 km STORE e',
    'GEOSEARCHSTORE x g FROMMEMBER Palermo BYRADIUS 1000 km STOREDIST',
  ]);
  assert.equal(await db.call('ZSCORE', 'x', 'Catania'), '166.27415156960032', 'as redis-server 7.0.15 stores it');
  await db.close();
});

test('RESP3: coordinates are doubles printed as %.17Lf, distances stay bulk strings', async () => {
  const db = await open();
  const s = db.session();
  await s.call('GEOADD', 'g', '13.361389', '38.115556', 'Palermo', '15.087269', '37.502669', 'Catania');
  await s.call('HELLO', '3');
  const resp3 = async (...args: string[]): Promise<string> => new Encoder(3).write((await callRaw(s, ...args)) as Reply).take().toString('latin1');
  assert.equal(await resp3('GEOPOS', 'g', 'Palermo', 'nope'), '*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n');
  assert.equal(
    await resp3('GEOSEARCH', 'g', 'FROMLONLAT', '15', '37', 'BYRADIUS', '100', 'km', 'WITHDIST', 'WITHCOORD', 'WITHHASH'),
    '*1\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n',
  );
  assert.deepEqual(await s.call('GEOHASH', 'g', 'Palermo', 'Catania'), ['sqc8b49rny0', 'sqdtr74hyu0']);
  s.close();
  await db.close();
});

test('sin, cos and asin round to the nearest double where Math does not', () => {
  // [x, the correctly rounded f(x)] from mpmath at 200 bits; Math.f(x) differs at each.
  const cases: Record<'sin' | 'cos' | 'asin', Array<[number, number]>> = {
    sin: [[-2.329355478286743, -0.725827889438121], [-2.170492172241211, -0.8255073153106224], [-1.306385099887848, -0.9652465387258372], [-0.6875410079956055, -0.6346387718937406], [1.0229102969169617, 0.8536275615118909], [2.1137466430664062, 0.8561880868799585]],
    cos: [[2.6024551391601562, -0.8581517971661221], [-2.013599395751953, -0.4284738697021918], [-2.3429900407791138, -0.6977084530061973], [2.594487190246582, -0.8540338859223244], [-2.1620548591017723, -0.5574063477154169], [0.9153778553009033, 0.6094910579335172]],
    asin: [[0.9642060995101929, 1.3024327811446874], [0.8286893367767334, 0.9767619211559192], [0.5411193668842316, 0.5717676211394057], [0.8125001192092896, 0.9484280427291428], [0.5345957279205322, 0.5640293073186612], [0.5977544784545898, 0.6406971515015755]],
  };
  const fns = { sin, cos, asin };
  for (const name of ['sin', 'cos', 'asin'] as const) {
    for (const [x, expected] of cases[name]) {
      assert.notEqual(Math[name](x), expected, `Math.${name}(${x}) is already right: not a telling case`);
      assert.equal(fns[name](x), expected, `${name}(${x})`);
      assert.equal(fns[name](-x), -expected * (name === 'cos' ? -1 : 1), `${name}(${-x})`);
    }
  }
  assert.equal(sin(0), 0);
  assert.equal(cos(0), 1);
  assert.equal(asin(1), Math.PI / 2);
  assert.ok(Number.isNaN(asin(1.5)));
});

test('geohash scores, strings and the number formats Redis prints', () => {
  assert.equal(scoreOf(13.361389, 38.115556), 3479099956230698);
  assert.equal(scoreOf(-180, -85.05112878), 0);
  assert.equal(geohashString(3479099956230698), 'sqc8b49rny0');
  assert.equal(formatDistance(166274.1516), '166274.1516');
  assert.equal(formatDistance(0.00005), '0.0000', 'llrint: half to even');
  assert.equal(formatDistance(0.00025), '0.0002', '2.5 to even');
  assert.equal(formatDistance(0.00035), '0.0004', '3.5 to even');
  assert.equal(formatDistance(0.00015), '0.0001', 'the product is 1.4999999999999998');
  assert.equal(formatDistance(0), '0.0000');
  assert.equal(formatHumanDouble(85.05112878), '85.0511287799999991');
  assert.equal(formatHumanDouble(-0.5), '-0.5');
  assert.equal(formatHumanDouble(2), '2');
  assert.equal(formatF(200), '200.000000');
  assert.equal(formatF(-Infinity), '-inf');
  assert.equal(formatF(1e22), '10000000000000000000000.000000');
  assert.equal(formatF(0.0000005), '0.000000', '%f rounds the exact binary value (just below half)');
});

// GEO commands compared byte for byte with redis-server 7.0.15 (geo.c): GEOADD's scores and
// options, GEOPOS/GEOHASH/GEODIST formatting (coordinates as %.17Lf, distances as %.4f), the
// searches (unsorted results in the nine-box order, ASC/DESC, COUNT with and without ANY, ties
// among equal distances, BYBOX, poles and the antimeridian), the STORE forms, every error, and
// COMMAND INFO / GETKEYS of the family.
import { cli } from './cli.js';
import { Rng, type DiffCase } from './case-types.js';

/** `n` points scattered around (lon, lat) within `spread` degrees: lon lat name triples. */
function cloud(seed: number, n: number, lon: number, lat: number, spread: number, prefix: string): string[] {
  const rng = new Rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = lon + (rng.next() * 2 - 1) * spread;
    const y = lat + (rng.next() * 2 - 1) * spread;
    out.push(x.toFixed(6), y.toFixed(6), `${prefix}${i}`);
  }
  return out;
}

const ROME = cloud(7, 150, 12.5, 41.9, 0.8, 'r');
const POLE = cloud(11, 40, 20, 84.5, 0.5, 'p');
const DATELINE = cloud(13, 40, 179.7, -16.5, 0.6, 'd');

export const cases: DiffCase[] = [
  {
    name: 'GEOADD: scores, NX/XX/CH, bad coordinates and options, WRONGTYPE',
    steps: cli`
      GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
      ZRANGE Sicily 0 -1 WITHSCORES
      GEOADD Sicily NX 13.361389 38.115556 Palermo 13.583333 37.316667 Agrigento
      GEOADD Sicily XX CH 13.361389 38.115556 Palermo 13.4 38.1 Palermo2 13.37 38.12 Agrigento
      GEOADD Sicily ch xx 13.37 38.12 Agrigento
      GEOADD Sicily CH 1 2 a 1 2 a
      ZRANGE Sicily 0 -1 WITHSCORES
      GEOADD Sicily NX XX 1 1 a
      GEOADD Sicily GT 1 1 a
      GEOADD Sicily 1 1
      GEOADD Sicily CH CH CH
      GEOADD Sicily 200 100 x
      GEOADD Sicily 180.0000001 0 x
      GEOADD Sicily 0 85.05112879 x
      GEOADD Sicily -180 -85.05112878 edge1 180 85.05112878 edge2
      GEOADD Sicily 1e300 1 x
      GEOADD Sicily -inf 1 x
      GEOADD Sicily 1 nan x
      GEOADD Sicily x 1 y
      GEOADD Sicily " 1" 1 y
      GEOADD Sicily 0x10 1e1 hex
      GEOADD Sicily 1 2 ok 300 2 bad
      ZSCORE Sicily ok
      GEOADD Sicily 0 0 zero -0 -0 negzero 0.000001 -0.000001 tiny
      ZRANGE Sicily 0 -1 WITHSCORES
      SET str x
      GEOADD str 1 1 m
      GEOADD str 1 1
    `,
  },
  {
    name: 'GEOPOS, GEOHASH, GEODIST: formatting, units, missing members and keys, scores ZADD wrote',
    steps: cli`
      GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania -180 -85.05112878 sw 180 85.05112878 ne 0 0 zero
      GEOPOS Sicily Palermo Catania nope sw ne zero
      GEOPOS nokey a b
      GEOPOS Sicily
      GEOHASH Sicily Palermo Catania nope sw ne zero
      GEOHASH nokey a
      GEODIST Sicily Palermo Catania
      GEODIST Sicily Palermo Catania m
      GEODIST Sicily Palermo Catania KM
      GEODIST Sicily Palermo Catania mi
      GEODIST Sicily Palermo Catania Ft
      GEODIST Sicily Palermo Palermo
      GEODIST Sicily sw ne km
      GEODIST Sicily Palermo nope
      GEODIST nokey a b
      GEODIST Sicily Palermo Catania parsec
      GEODIST nokey a b parsec
      GEODIST Sicily Palermo Catania km extra
      ZADD Sicily -5 neg 1e20 huge inf posinf -inf neginf 1.5 frac 4503599627370495 max52 4503599627370496 over52
      GEOPOS Sicily neg huge posinf neginf frac max52 over52
      GEOHASH Sicily neg huge posinf neginf frac max52 over52
      GEODIST Sicily neg huge
      SET str x
      GEOPOS str a
      GEOHASH str a
      GEODIST str a b
      GEODIST str a b parsec
    `,
  },
  {
    name: 'GEORADIUS / GEOSEARCH: unsorted order, ASC/DESC, WITH* replies, COUNT and ANY',
    steps: cli`
      GEOADD rome ${ROME}
      GEORADIUS rome 12.5 41.9 30 km
      GEORADIUS rome 12.5 41.9 30 km WITHDIST WITHCOORD WITHHASH
      GEORADIUS rome 12.5 41.9 30 km ASC WITHDIST
      GEORADIUS rome 12.5 41.9 30000 m DESC WITHCOORD
      GEORADIUS rome 12.5 41.9 20 mi COUNT 5
      GEORADIUS rome 12.5 41.9 20 mi COUNT 5 DESC WITHDIST
      GEORADIUS rome 12.5 41.9 20 mi COUNT 5 ANY
      GEORADIUS rome 12.5 41.9 20 mi COUNT 5 ANY ASC WITHDIST
      GEORADIUS rome 12.5 41.9 20 mi COUNT 500 WITHHASH
      GEORADIUS rome 12.5 41.9 100000 ft WITHDIST
      GEORADIUS rome 12.5 41.9 0 km
      GEORADIUS rome 0 0 10 km
      GEORADIUS rome 12.5 41.9 20000 km COUNT 3
      GEORADIUSBYMEMBER rome r0 25 km
      GEORADIUSBYMEMBER rome r0 25 km WITHDIST COUNT 4
      GEORADIUSBYMEMBER_RO rome r1 40 km DESC COUNT 7 ANY
      GEORADIUS_RO rome 12.3 42.1 35 km WITHCOORD
      GEOSEARCH rome FROMMEMBER r2 BYRADIUS 30 km
      GEOSEARCH rome FROMLONLAT 12.5 41.9 BYBOX 60 40 km
      GEOSEARCH rome FROMLONLAT 12.5 41.9 BYBOX 60 40 km ASC WITHDIST WITHCOORD WITHHASH
      GEOSEARCH rome FROMLONLAT 12.5 41.9 BYBOX 100 10 km DESC COUNT 6
      GEOSEARCH rome FROMMEMBER r3 BYBOX 30000 80000 m COUNT 10 ANY WITHDIST
      GEOSEARCH rome FROMLONLAT 12.5 41.9 BYBOX 0 0 km
      geosearch rome fromlonlat 12.5 41.9 byradius 25 km asc count 3 any desc
      GEOSEARCH rome BYRADIUS 10 km FROMMEMBER r4 WITHDIST
      GEOSEARCH rome FROMLONLAT 12.5 41.9 BYRADIUS 10 km BYRADIUS 20 km
    `,
  },
  {
    name: 'ties: equal distances sorted whole (stable) and partially (pqsort) with COUNT',
    steps: cli`
      GEOADD ties 10 10 a 10 10 b 10 10 c 10 10 d 10 10 e 10 10 f 10 10 g 10 10 h 10 10 i 10 10 j
      GEOADD ties 10.01 10 k 10.01 10 l 10.01 10 m 9.99 10 n 9.99 10 o 10 10.01 p 10 9.99 q
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km ASC
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km DESC
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km COUNT 3
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km COUNT 8 DESC
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km COUNT 12 WITHDIST
      GEOSEARCH ties FROMLONLAT 10 10 BYRADIUS 10 km COUNT 16 DESC
      GEOSEARCH ties FROMLONLAT 10.005 10 BYRADIUS 10 km COUNT 9 WITHDIST
      GEOSEARCH ties FROMLONLAT 10.005 10 BYRADIUS 10 km COUNT 9 ANY
      GEORADIUS rome 12.5 41.9 50 km COUNT 40 DESC
    `,
  },
  {
    name: 'searches near a pole and across the antimeridian; huge, infinite and zero radii; the corners of the valid range',
    steps: cli`
      GEOADD pole ${POLE}
      GEOADD dl ${DATELINE}
      GEORADIUS pole 20 84.5 40 km
      GEORADIUS pole 20 84.5 40 km ASC WITHDIST
      GEOSEARCH pole FROMLONLAT 20 85 BYBOX 200 50 km
      GEOSEARCH pole FROMLONLAT 20 84.5 BYRADIUS 500 km COUNT 5 ANY
      GEORADIUS dl 180 -16.5 50 km
      GEORADIUS dl -179.9 -16.5 80 km WITHCOORD
      GEOSEARCH dl FROMLONLAT 180 -16.5 BYBOX 150 150 km
      GEOSEARCH dl FROMLONLAT -180 -16.5 BYBOX 150 150 km DESC WITHDIST
      GEORADIUS dl 0 0 50000 km
      GEORADIUS dl 0 0 5000 km
      GEOADD world 0 0 a 90 0 b -90 0 c 179 0 d 0 80 e 0 -80 f
      GEORADIUS world 0 0 20000 km
      GEORADIUS world 0 0 10000 km WITHDIST
      GEOSEARCH world FROMLONLAT 0 0 BYBOX 40000 20000 km
      GEOSEARCH world FROMLONLAT 0 0 BYBOX 40000 20000 km ASC WITHDIST
      GEOADD w 0 0 a 179.9999 85 b -179.9999 -85 c 180 85.05112878 d -180 -85.05112878 e 90 45 f
      GEORADIUS w 0 0 inf km
      GEORADIUS w 0 0 1e308 km WITHDIST
      GEORADIUS w 0 0 1e300 m WITHDIST ASC
      GEOSEARCH w FROMLONLAT 0 0 BYBOX inf inf km WITHDIST
      GEOSEARCH w FROMLONLAT 0 0 BYBOX 1e30 1 km WITHDIST
      GEOSEARCH w FROMLONLAT 180 85.05112878 BYRADIUS 100 km WITHDIST WITHCOORD
      GEOSEARCH w FROMLONLAT -180 -85.05112878 BYRADIUS 10000 km WITHDIST WITHCOORD
      GEOSEARCH w FROMMEMBER d BYBOX 50000 50000 km WITHDIST
      GEOSEARCH w FROMMEMBER e BYRADIUS 20037 km WITHDIST
      GEODIST w d e
      GEODIST w a f mi
      GEOSEARCH w FROMLONLAT 0 0 BYRADIUS 0 km
      GEOSEARCH w FROMLONLAT 0 0 BYBOX 0 0 km
      GEORADIUS w 0 0 5e-324 m
    `,
  },
  {
    name: 'the STORE forms: STORE, STOREDIST, GEOSEARCHSTORE, empty results, missing sources',
    steps: cli`
      GEOADD rome ${ROME}
      GEORADIUS rome 12.5 41.9 10 km STORE dst
      ZRANGE dst 0 -1 WITHSCORES
      OBJECT ENCODING dst
      GEORADIUS rome 12.5 41.9 10 km STOREDIST dst COUNT 3
      ZRANGE dst 0 -1 WITHSCORES
      GEORADIUS rome 12.5 41.9 10 km STOREDIST dst DESC COUNT 3 ANY
      ZRANGE dst 0 -1 WITHSCORES
      GEORADIUS rome 12.5 41.9 100 km STORE big
      OBJECT ENCODING big
      ZCARD big
      GEORADIUS rome 12.5 41.9 10 km STOREDIST a STORE b
      EXISTS a
      ZRANGE b 0 -1
      GEORADIUSBYMEMBER rome r0 10 mi STOREDIST dst
      ZRANGE dst 0 -1 WITHSCORES
      GEOSEARCHSTORE dst rome FROMLONLAT 12.5 41.9 BYBOX 10 10 km
      ZRANGE dst 0 -1 WITHSCORES
      GEOSEARCHSTORE dst rome FROMLONLAT 12.5 41.9 BYBOX 10 10 km STOREDIST COUNT 4
      ZRANGE dst 0 -1 WITHSCORES
      GEOSEARCHSTORE dst rome FROMLONLAT 0 0 BYRADIUS 1 km
      EXISTS dst
      SET dst x
      GEOSEARCHSTORE dst nokey FROMMEMBER m BYRADIUS 1 km
      EXISTS dst
      GEOSEARCHSTORE dst nokey FROMMEMBER m BYRADIUS 1 km
      SET dst x
      GEORADIUS nokey 0 0 1 km STORE dst
      EXISTS dst
      SET dst x
      GEORADIUS rome 0 0 1 km STORE dst
      EXISTS dst
      GEOSEARCHSTORE rome rome FROMMEMBER r1 BYRADIUS 5 km STOREDIST
      ZRANGE rome 0 -1 WITHSCORES
      SET str x
      GEOSEARCHSTORE str rome FROMMEMBER r1 BYRADIUS 5 km
      GEOSEARCHSTORE dst str FROMMEMBER r1 BYRADIUS 5 km
      TYPE str
    `,
  },
  {
    name: 'search errors in Redis order',
    steps: cli`
      GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania
      SET str x
      GEORADIUS str 200 0 x km
      GEORADIUS Sicily 200 0 x km
      GEORADIUS Sicily 15 37 x km
      GEORADIUS Sicily 15 37 -1 km
      GEORADIUS Sicily 15 37 1 parsec
      GEORADIUS Sicily 15 37 1 km BOGUS
      GEORADIUS Sicily 15 37 1 km COUNT
      GEORADIUS Sicily 15 37 1 km COUNT x
      GEORADIUS Sicily 15 37 1 km COUNT 0
      GEORADIUS Sicily 15 37 1 km COUNT -3
      GEORADIUS Sicily 15 37 1 km ANY
      GEORADIUS Sicily 15 37 1 km STORE
      GEORADIUS Sicily 15 37 1 km STORE d WITHDIST
      GEORADIUS Sicily 15 37 1 km STOREDIST d WITHHASH
      GEORADIUS Sicily 15 37 1 km FROMMEMBER Palermo
      GEORADIUS_RO Sicily 15 37 1 km STORE d
      GEORADIUS_RO Sicily 15 37 1 km STOREDIST d
      GEORADIUSBYMEMBER Sicily nope 1 km
      GEORADIUSBYMEMBER Sicily Palermo x km
      GEORADIUSBYMEMBER Sicily Palermo 1 parsec
      GEORADIUSBYMEMBER nokey nope x parsec
      GEORADIUSBYMEMBER nokey nope x parsec BOGUS
      GEORADIUSBYMEMBER nokey nope x parsec STORE d WITHDIST
      GEORADIUSBYMEMBER_RO Sicily Palermo 1 km STORE d
      GEORADIUS nokey 200 0 1 km
      GEOSEARCH Sicily FROMMEMBER Palermo
      GEOSEARCH Sicily BYRADIUS 1 km
      geosearch Sicily byradius 1 km
      GEOSEARCH Sicily FROMMEMBER nope BYRADIUS 1 km
      GEOSEARCH Sicily FROMMEMBER Palermo FROMLONLAT 1 1 BYRADIUS 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 FROMMEMBER Palermo BYRADIUS 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS 1 km BYBOX 1 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX 1 1 km BYRADIUS 1 km
      GEOSEARCH Sicily FROMLONLAT 200 1 BYRADIUS 1 km
      GEOSEARCH Sicily FROMLONLAT 1 x BYRADIUS 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS x km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS -1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS 1 parsec
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX x 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX 1 x km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX x x km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX -1 1 km
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX 1 -1 parsec
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX 1 1 parsec
      GEOSEARCH Sicily FROMLONLAT 1 1 BYBOX 1 1
      GEOSEARCH Sicily FROMLONLAT 1 1 BYRADIUS 1
      GEOSEARCH Sicily FROMLONLAT 1 BYRADIUS 1 km
      GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km STORE d
      GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km STOREDIST
      GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km ANY
      GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km COUNT 0
      GEOSEARCH nokey FROMMEMBER nope BYRADIUS x km
      GEOSEARCH nokey FROMMEMBER nope
      GEOSEARCH nokey FROMLONLAT 1 1 BYRADIUS 1 km WITHDIST
      GEOSEARCH str FROMMEMBER nope BYRADIUS 1 km
      GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 1 km WITHDIST
      GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 1 km WITHCOORD
      GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 1 km STORE x
      GEOSEARCHSTORE d Sicily BYRADIUS 1 km
      geosearchstore d Sicily FROMMEMBER Palermo
      GEOSEARCHSTORE d Sicily FROMMEMBER Palermo BYRADIUS 1 km ANY
      GEOSEARCHSTORE d nokey FROMMEMBER nope BYRADIUS 1 km WITHDIST
      GEOSEARCH Sicily FROMMEMBER Palermo BYRADIUS 1 km COUNT 99999999999999999999
      GEOSEARCH
      GEOSEARCH Sicily FROMMEMBER Palermo
      GEORADIUS Sicily 1 1 1
    `,
  },
  {
    name: 'GEO in MULTI, and keys that other commands see',
    steps: cli`
      MULTI
      GEOADD m 1 1 a 2 2 b
      GEOSEARCH m FROMMEMBER a BYRADIUS 500 km WITHDIST
      GEOSEARCHSTORE n m FROMMEMBER a BYRADIUS 500 km STOREDIST
      GEODIST m a b km
      EXEC
      TYPE m
      ZCARD n
      ZSCORE n b
      OBJECT ENCODING m
    `,
  },
  {
    name: 'COMMAND INFO and GETKEYS of the GEO commands',
    protocols: [2],
    steps: cli`
      COMMAND INFO GEOADD  => commandInfoHead
      COMMAND INFO GEOPOS  => commandInfoHead
      COMMAND INFO GEODIST  => commandInfoHead
      COMMAND INFO GEOHASH  => commandInfoHead
      COMMAND INFO GEORADIUS  => commandInfoHead
      COMMAND INFO GEORADIUS_RO  => commandInfoHead
      COMMAND INFO GEORADIUSBYMEMBER  => commandInfoHead
      COMMAND INFO GEORADIUSBYMEMBER_RO  => commandInfoHead
      COMMAND INFO GEOSEARCH  => commandInfoHead
      COMMAND INFO GEOSEARCHSTORE  => commandInfoHead
      COMMAND GETKEYS GEORADIUS k 0 0 1 km STORE a STOREDIST b
      COMMAND GETKEYS GEORADIUS k 0 0 1 km STORE a STORE b
      COMMAND GETKEYS GEORADIUS k 0 0 1 km WITHDIST
      COMMAND GETKEYS GEORADIUS k 0 0 STORE km STORE
      COMMAND GETKEYS GEORADIUS k store a 1 km
      COMMAND GETKEYS GEORADIUSBYMEMBER k m 1 km STOREDIST a
      COMMAND GETKEYS GEORADIUSBYMEMBER k store 1 km x
      COMMAND GETKEYS GEORADIUS_RO k 0 0 1 km STORE a
      COMMAND GETKEYS GEOSEARCHSTORE d s FROMMEMBER m BYRADIUS 1 km
      COMMAND GETKEYS GEOADD k 1 1 m
      COMMAND GETKEYS GEOSEARCH k FROMMEMBER m BYRADIUS 1 km
    `,
  },
];

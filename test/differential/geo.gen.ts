// Random GEO steps: positions in a small region (so searches find members, at distances where
// the nine boxes and the sort matter) plus the edges of the valid range and bad values; searches
// of every form with random options, sometimes on sorted sets that other commands wrote
// ("zset" keys, arbitrary scores) or on keys of other types.
import type { KeySpace, Rng, Step, StepGenerator } from './case-types.js';

function gen(name: string, weight: number, next: (rng: Rng, s: KeySpace) => Step): StepGenerator {
  return { name, weight, next };
}

const BAD = ['x', '', 'nan', '200', '-91', '1e400', 'inf'];
const lon = (r: Rng) => (r.chance(0.03) ? r.pick(BAD) : r.chance(0.05) ? r.pick(['-180', '180', '0']) : (2 + r.next() * 0.4).toFixed(r.int(7)));
const lat = (r: Rng) =>
  r.chance(0.03) ? r.pick(BAD) : r.chance(0.05) ? r.pick(['85.05112878', '-85.05112878', '0']) : (48 + r.next() * 0.3).toFixed(r.int(7));
const key = (r: Rng, s: KeySpace) => s.key(r.chance(0.85) ? 'geo' : 'zset');
const unit = (r: Rng) => (r.chance(0.03) ? 'parsec' : r.pick(['m', 'km', 'KM', 'mi', 'ft']));
const radius = (r: Rng) => (r.chance(0.03) ? r.pick(['-1', 'x']) : r.pick(['0', '500', '5000', '20', '15', '1', '30', '12.5', '40000']));

function searchOptions(r: Rng, store: boolean): string[] {
  const out: string[] = [];
  if (!store && r.chance(0.3)) out.push('WITHDIST');
  if (!store && r.chance(0.2)) out.push('WITHCOORD');
  if (!store && r.chance(0.2)) out.push('WITHHASH');
  if (r.chance(0.3)) out.push(r.pick(['ASC', 'DESC', 'asc']));
  if (r.chance(0.35)) {
    out.push('COUNT', r.pick(['1', '2', '3', '5', '0', '-1']));
    if (r.chance(0.4)) out.push('ANY');
  } else if (r.chance(0.03)) out.push('ANY');
  return out;
}

function shape(r: Rng): string[] {
  return r.chance(0.5) ? ['BYRADIUS', radius(r), unit(r)] : ['BYBOX', radius(r), radius(r), unit(r)];
}

function from(r: Rng, s: KeySpace): string[] {
  return r.chance(0.5) ? ['FROMMEMBER', s.field()] : ['FROMLONLAT', lon(r), lat(r)];
}

export const generators: StepGenerator[] = [
  gen('geoadd', 5, (r, s) => {
    const opts: string[] = [];
    for (const o of ['NX', 'XX', 'CH']) if (r.chance(0.12)) opts.push(o);
    const n = 1 + r.int(4);
    return ['GEOADD', key(r, s), ...opts, ...Array.from({ length: n }, () => [lon(r), lat(r), s.field()]).flat()];
  }),
  gen('geopos', 1, (r, s) => ['GEOPOS', key(r, s), s.field(), s.field()]),
  gen('geohash', 1, (r, s) => ['GEOHASH', key(r, s), s.field(), s.field()]),
  gen('geodist', 1, (r, s) => ['GEODIST', key(r, s), s.field(), s.field(), ...(r.chance(0.6) ? [unit(r)] : [])]),
  gen('georadius', 2, (r, s) => {
    const store = r.chance(0.2);
    const ro = !store && r.chance(0.3);
    const storeArgs = store ? [r.pick(['STORE', 'STOREDIST']), s.key('zset')] : [];
    return [ro ? 'GEORADIUS_RO' : 'GEORADIUS', key(r, s), lon(r), lat(r), radius(r), unit(r), ...searchOptions(r, store), ...storeArgs];
  }),
  gen('georadiusbymember', 2, (r, s) => {
    const store = r.chance(0.2);
    const storeArgs = store ? [r.pick(['STORE', 'STOREDIST']), s.key('zset')] : [];
    return ['GEORADIUSBYMEMBER', key(r, s), s.field(), radius(r), unit(r), ...searchOptions(r, store), ...storeArgs];
  }),
  gen('geosearch', 3, (r, s) => ['GEOSEARCH', key(r, s), ...from(r, s), ...shape(r), ...searchOptions(r, false)]),
  gen('geosearchstore', 2, (r, s) => [
    'GEOSEARCHSTORE',
    s.key('zset'),
    key(r, s),
    ...from(r, s),
    ...shape(r),
    ...searchOptions(r, true),
    ...(r.chance(0.4) ? ['STOREDIST'] : []),
  ]),
];

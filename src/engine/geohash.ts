// Redis 7.0's geohash math (geohash.c, geohash_helper.c), operation for operation, so that GEO
// commands store the same scores, print the same coordinates and distances and visit the same
// neighbour boxes in the same order as redis-server: a position is a 52-bit interleave of
// latitude (even bits) and longitude (odd bits) over [-85.05112878, 85.05112878] x [-180, 180],
// stored as the member's sorted-set score. Bit operations are done on BigInt (64-bit as in C);
// sin, cos and asin are libm.ts's, rounded to the nearest double as glibc (nearly always) does.
import { asin, cos, sin } from './libm.js';

export const GEO_STEP_MAX = 26;
export const GEO_LAT_MIN = -85.05112878;
export const GEO_LAT_MAX = 85.05112878;
export const GEO_LONG_MIN = -180;
export const GEO_LONG_MAX = 180;

const D_R = Math.PI / 180.0;
/** Earth's quadratic mean radius for WGS-84, as Redis has it. */
const EARTH_RADIUS_IN_METERS = 6372797.560856;
const MERCATOR_MAX = 20037726.37;

const U64 = (1n << 64n) - 1n;

export interface Range {
  min: number;
  max: number;
}

/** A hash of `step` bits per coordinate; bits 0 and step 0 is "no box" (GZERO). */
export interface HashBits {
  bits: bigint;
  step: number;
}

export interface Area {
  hash: HashBits;
  longitude: Range;
  latitude: Range;
}

const WGS84_LONG: Range = { min: GEO_LONG_MIN, max: GEO_LONG_MAX };
const WGS84_LAT: Range = { min: GEO_LAT_MIN, max: GEO_LAT_MAX };

function interleave64(xlo: bigint, ylo: bigint): bigint {
  const B = [0x5555555555555555n, 0x3333333333333333n, 0x0f0f0f0f0f0f0f0fn, 0x00ff00ff00ff00ffn, 0x0000ffff0000ffffn];
  const S = [1n, 2n, 4n, 8n, 16n];
  let x = xlo;
  let y = ylo;
  for (let i = 4; i >= 0; i--) {
    x = (x | (x << S[i]!)) & B[i]!;
    y = (y | (y << S[i]!)) & B[i]!;
  }
  return x | (y << 1n);
}

function deinterleave64(interleaved: bigint): bigint {
  const B = [0x5555555555555555n, 0x3333333333333333n, 0x0f0f0f0f0f0f0f0fn, 0x00ff00ff00ff00ffn, 0x0000ffff0000ffffn, 0x00000000ffffffffn];
  const S = [0n, 1n, 2n, 4n, 8n, 16n];
  let x = interleaved;
  let y = interleaved >> 1n;
  for (let i = 0; i < 6; i++) {
    x = (x | (x >> S[i]!)) & B[i]!;
    y = (y | (y >> S[i]!)) & B[i]!;
  }
  return x | (y << 32n);
}

/** geohashEncode: undefined where Redis returns 0 (outside the WGS84 limits or the ranges). */
export function encode(longRange: Range, latRange: Range, longitude: number, latitude: number, step: number): HashBits | undefined {
  if (step > 32 || step === 0) return undefined;
  if (longitude > GEO_LONG_MAX || longitude < GEO_LONG_MIN || latitude > GEO_LAT_MAX || latitude < GEO_LAT_MIN) return undefined;
  if (latitude < latRange.min || latitude > latRange.max || longitude < longRange.min || longitude > longRange.max) return undefined;
  let latOffset = (latitude - latRange.min) / (latRange.max - latRange.min);
  let longOffset = (longitude - longRange.min) / (longRange.max - longRange.min);
  latOffset *= 2 ** step;
  longOffset *= 2 ** step;
  // The double is converted to uint32_t (truncated) by the call to interleave64.
  return { bits: interleave64(BigInt(Math.trunc(latOffset)) & 0xffffffffn, BigInt(Math.trunc(longOffset)) & 0xffffffffn), step };
}

export function encodeWGS84(longitude: number, latitude: number, step: number): HashBits | undefined {
  return encode(WGS84_LONG, WGS84_LAT, longitude, latitude, step);
}

/** geohashDecode over the given ranges (never fails for a non-zero hash). */
export function decode(longRange: Range, latRange: Range, hash: HashBits): Area | undefined {
  if (hash.bits === 0n && hash.step === 0) return undefined;
  const step = hash.step;
  const sep = deinterleave64(hash.bits);
  const latScale = latRange.max - latRange.min;
  const longScale = longRange.max - longRange.min;
  const ilato = Number(sep & 0xffffffffn);
  const ilono = Number((sep >> 32n) & 0xffffffffn);
  const div = 2 ** step;
  return {
    hash,
    latitude: {
      min: latRange.min + (ilato * 1.0 / div) * latScale,
      max: latRange.min + (((ilato + 1) >>> 0) * 1.0 / div) * latScale,
    },
    longitude: {
      min: longRange.min + (ilono * 1.0 / div) * longScale,
      max: longRange.min + (((ilono + 1) >>> 0) * 1.0 / div) * longScale,
    },
  };
}

/** The centre of a decoded area, clamped to the limits: [longitude, latitude]. */
function areaCentre(area: Area): [number, number] {
  let x = (area.longitude.min + area.longitude.max) / 2;
  if (x > GEO_LONG_MAX) x = GEO_LONG_MAX;
  if (x < GEO_LONG_MIN) x = GEO_LONG_MIN;
  let y = (area.latitude.min + area.latitude.max) / 2;
  if (y > GEO_LAT_MAX) y = GEO_LAT_MAX;
  if (y < GEO_LAT_MIN) y = GEO_LAT_MIN;
  return [x, y];
}

/** (uint64_t)score as gcc's x86-64 code converts it (out of range: the "indefinite" value). */
function scoreBits(score: number): bigint {
  if (Number.isNaN(score)) return 1n << 63n;
  if (score >= 2 ** 64 || score <= -(2 ** 63) - 1) return score >= 2 ** 64 ? 0n : 1n << 63n;
  if (score >= 2 ** 63) return (BigInt(Math.trunc(score - 2 ** 63)) ^ (1n << 63n)) & U64;
  return BigInt(Math.trunc(score)) & U64;
}

/** decodeGeohash: the [longitude, latitude] a sorted-set score stands for. */
export function decodeScore(score: number): [number, number] {
  return areaCentre(decode(WGS84_LONG, WGS84_LAT, { bits: scoreBits(score), step: GEO_STEP_MAX })!);
}

/** geohashAlign52Bits: the hash as a 52-bit score. */
export function align52Bits(hash: HashBits): bigint {
  return (hash.bits << BigInt(52 - hash.step * 2)) & U64;
}

/** The score GEOADD stores for a position (already checked to be within the limits). */
export function scoreOf(longitude: number, latitude: number): number {
  return Number(align52Bits(encodeWGS84(longitude, latitude, GEO_STEP_MAX)!));
}

const GEO_ALPHABET = '0123456789bcdefghjkmnpqrstuvwxyz';

/** GEOHASH's 11-character string: the position re-encoded over the standard [-90, 90] range. */
export function geohashString(score: number): string {
  const [x, y] = decodeScore(score);
  const hash = encode({ min: -180, max: 180 }, { min: -90, max: 90 }, x, y, 26) ?? { bits: 0n, step: 26 };
  let out = '';
  for (let i = 0; i < 11; i++) {
    const idx = i === 10 ? 0 : Number((hash.bits >> BigInt(52 - (i + 1) * 5)) & 0x1fn);
    out += GEO_ALPHABET[idx];
  }
  return out;
}

// --- distances -----------------------------------------------------------------------------------

const degRad = (ang: number): number => ang * D_R;
const radDeg = (ang: number): number => ang / D_R;

export function latDistance(lat1d: number, lat2d: number): number {
  return EARTH_RADIUS_IN_METERS * Math.abs(degRad(lat2d) - degRad(lat1d));
}

/** geohashGetDistance: the haversine distance in meters. */
export function distance(lon1d: number, lat1d: number, lon2d: number, lat2d: number): number {
  const lon1r = degRad(lon1d);
  const lon2r = degRad(lon2d);
  const v = sin((lon2r - lon1r) / 2);
  if (v === 0.0) return latDistance(lat1d, lat2d);
  const lat1r = degRad(lat1d);
  const lat2r = degRad(lat2d);
  const u = sin((lat2r - lat1r) / 2);
  const a = u * u + cos(lat1r) * cos(lat2r) * v * v;
  return 2.0 * EARTH_RADIUS_IN_METERS * asin(Math.sqrt(a));
}

// --- search areas --------------------------------------------------------------------------------

/** What is searched: a circle (radius) or an axis-aligned box (width x height), in `conversion` units. */
export type Shape =
  | { type: 'circle'; xy: [number, number]; conversion: number; radius: number }
  | { type: 'box'; xy: [number, number]; conversion: number; width: number; height: number };

/** geoWithinShape's test for a decoded point: its distance from the centre, or undefined when outside. */
export function distanceWithin(shape: Shape, x: number, y: number): number | undefined {
  const [cx, cy] = shape.xy;
  if (shape.type === 'circle') {
    const d = distance(cx, cy, x, y);
    return d > shape.radius * shape.conversion ? undefined : d;
  }
  const widthM = shape.width * shape.conversion;
  const heightM = shape.height * shape.conversion;
  if (latDistance(y, cy) > heightM / 2) return undefined;
  if (distance(x, y, cx, y) > widthM / 2) return undefined;
  return distance(cx, cy, x, y);
}

function estimateStepsByRadius(rangeMeters: number, lat: number): number {
  if (rangeMeters === 0) return 26;
  let step = 1;
  while (rangeMeters < MERCATOR_MAX) {
    rangeMeters *= 2;
    step++;
  }
  step -= 2;
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return step;
}

/** geohashBoundingBox: [minLon, minLat, maxLon, maxLat]. */
function boundingBox(shape: Shape): [number, number, number, number] {
  const [longitude, latitude] = shape.xy;
  const height = shape.conversion * (shape.type === 'circle' ? shape.radius : shape.height / 2);
  const width = shape.conversion * (shape.type === 'circle' ? shape.radius : shape.width / 2);
  const latDelta = radDeg(height / EARTH_RADIUS_IN_METERS);
  const longDeltaTop = radDeg(width / EARTH_RADIUS_IN_METERS / cos(degRad(latitude + latDelta)));
  const longDeltaBottom = radDeg(width / EARTH_RADIUS_IN_METERS / cos(degRad(latitude - latDelta)));
  const southern = latitude < 0;
  return [
    southern ? longitude - longDeltaBottom : longitude - longDeltaTop,
    latitude - latDelta,
    southern ? longitude + longDeltaBottom : longitude + longDeltaTop,
    latitude + latDelta,
  ];
}

function moveX(hash: HashBits, d: number): HashBits {
  if (d === 0) return hash;
  let x = hash.bits & 0xaaaaaaaaaaaaaaaan;
  const y = hash.bits & 0x5555555555555555n;
  const shift = BigInt(64 - hash.step * 2);
  const zz = 0x5555555555555555n >> shift;
  if (d > 0) x = x + (zz + 1n);
  else {
    x = x | zz;
    x = x - (zz + 1n);
  }
  x &= 0xaaaaaaaaaaaaaaaan >> shift;
  return { bits: x | y, step: hash.step };
}

function moveY(hash: HashBits, d: number): HashBits {
  if (d === 0) return hash;
  const x = hash.bits & 0xaaaaaaaaaaaaaaaan;
  let y = hash.bits & 0x5555555555555555n;
  const shift = BigInt(64 - hash.step * 2);
  const zz = 0xaaaaaaaaaaaaaaaan >> shift;
  if (d > 0) y = y + (zz + 1n);
  else {
    y = y | zz;
    y = y - (zz + 1n);
  }
  y &= 0x5555555555555555n >> shift;
  return { bits: x | y, step: hash.step };
}

const move = (hash: HashBits, dx: number, dy: number): HashBits => moveY(moveX(hash, dx), dy);
const ZERO: HashBits = { bits: 0n, step: 0 };

/**
 * geohashCalculateAreasByShapeWGS84: the centre box and its eight neighbours that cover the
 * shape, in the order membersOfAllNeighbors visits them (self, N, S, E, W, NE, NW, SE, SW);
 * a box that cannot hold a match is a zero hash.
 */
export function searchBoxes(shape: Shape): HashBits[] {
  const [minLon, minLat, maxLon, maxLat] = boundingBox(shape);
  const [longitude, latitude] = shape.xy;
  let radiusMeters =
    shape.type === 'circle' ? shape.radius : Math.sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2));
  radiusMeters *= shape.conversion;
  let steps = estimateStepsByRadius(radiusMeters, latitude);

  const around = (step: number) => {
    const hash = encodeWGS84(longitude, latitude, step) ?? { bits: 0n, step };
    return {
      hash,
      north: move(hash, 0, 1),
      south: move(hash, 0, -1),
      east: move(hash, 1, 0),
      west: move(hash, -1, 0),
      northEast: move(hash, 1, 1),
      northWest: move(hash, -1, 1),
      southEast: move(hash, 1, -1),
      southWest: move(hash, -1, -1),
      area: decode(WGS84_LONG, WGS84_LAT, hash),
    };
  };
  let n = around(steps);
  const north = decode(WGS84_LONG, WGS84_LAT, n.north);
  const south = decode(WGS84_LONG, WGS84_LAT, n.south);
  const east = decode(WGS84_LONG, WGS84_LAT, n.east);
  const west = decode(WGS84_LONG, WGS84_LAT, n.west);
  // A zero neighbour decodes to nothing; C reads the zeroed area then (all 0).
  const decrease =
    (north?.latitude.max ?? 0) < maxLat ||
    (south?.latitude.min ?? 0) > minLat ||
    (east?.longitude.max ?? 0) < maxLon ||
    (west?.longitude.min ?? 0) > minLon;
  if (steps > 1 && decrease) {
    steps--;
    n = around(steps);
  }
  const area = n.area ?? { longitude: { min: 0, max: 0 }, latitude: { min: 0, max: 0 } };
  if (steps >= 2) {
    if (area.latitude.min < minLat) n.south = n.southWest = n.southEast = ZERO;
    if (area.latitude.max > maxLat) n.north = n.northEast = n.northWest = ZERO;
    if (area.longitude.min < minLon) n.west = n.southWest = n.northWest = ZERO;
    if (area.longitude.max > maxLon) n.east = n.southEast = n.northEast = ZERO;
  }
  return [n.hash, n.north, n.south, n.east, n.west, n.northEast, n.northWest, n.southEast, n.southWest];
}

/** scoresOfGeoHashBox: the scores [min, max) of the members inside a box. */
export function boxScores(hash: HashBits): [number, number] {
  return [Number(align52Bits(hash)), Number(align52Bits({ bits: hash.bits + 1n, step: hash.step }))];
}

// --- formatting ----------------------------------------------------------------------------------

/** fixedpoint_d2string(d, 4): llrint(d * 10^4) printed with four decimals (GEODIST, WITHDIST). */
export function formatDistance(d: number): string {
  if (d === 0) return '0.0000';
  const v = d * 10000;
  const f = Math.floor(v);
  const diff = v - f;
  let r = diff > 0.5 ? f + 1 : diff < 0.5 ? f : f % 2 === 0 ? f : f + 1;
  const negative = r < 0;
  if (negative) r = -r;
  const digits = BigInt(r).toString().padStart(5, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -4)}.${digits.slice(-4)}`;
}

/** |d| (finite) times 10^places, rounded half to even on the exact binary value, as printf rounds. */
function scaledDigits(d: number, places: number): bigint {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(d));
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (biased === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = biased - 1075;
  }
  const scale = 10n ** BigInt(places);
  if (e >= 0) return (m << BigInt(e)) * scale;
  const num = m * scale;
  const den = 1n << BigInt(-e);
  let n = num / den;
  const twiceRem = 2n * (num - n * den);
  if (twiceRem > den || (twiceRem === den && (n & 1n) === 1n)) n++;
  return n;
}

/**
 * A double as Redis's addReplyHumanLongDouble prints it: "%.17Lf" of the (exactly converted)
 * value, trailing zeros and a bare '.' removed.
 */
export function formatHumanDouble(d: number): string {
  if (d === Infinity) return 'inf';
  if (d === -Infinity) return '-inf';
  const n = scaledDigits(d, 17);
  if (n === 0n) return '0';
  const digits = n.toString().padStart(18, '0');
  const intPart = digits.slice(0, -17);
  const frac = digits.slice(-17).replace(/0+$/, '');
  return `${d < 0 ? '-' : ''}${intPart}${frac.length > 0 ? `.${frac}` : ''}`;
}

/** printf's "%f" (six decimals), as the invalid-pair error prints the coordinates. */
export function formatF(d: number): string {
  if (Number.isNaN(d)) return 'nan';
  if (d === Infinity) return 'inf';
  if (d === -Infinity) return '-inf';
  const negative = d < 0 || Object.is(d, -0);
  const digits = scaledDigits(d, 6).toString().padStart(7, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

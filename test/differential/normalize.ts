// Masks for replies that legitimately differ between sluice and Redis. Each one is named in
// the case that uses it, so every relaxation of "byte for byte" is visible where it applies.
import type { Frame } from './frames.js';

/** Turns a reply into the bytes that are compared. */
export type Normaliser = (frame: Frame) => Buffer | string;

function header(frame: Frame): string {
  const raw = frame.raw.toString('latin1');
  return raw.slice(0, raw.indexOf('\r\n') + 2);
}

/** Elements sorted by their bytes: for replies in hash-table order (KEYS, SMEMBERS of a hashtable set). */
export const sorted: Normaliser = (frame) => {
  if (frame.children === undefined) return frame.raw;
  const parts = frame.children.map((c) => c.raw.toString('latin1')).sort();
  return header(frame) + parts.join('');
};

/** A map's entries sorted by key (HGETALL of a hashtable-encoded hash). */
export const sortedMap: Normaliser = (frame) => {
  const children = frame.children;
  if (children === undefined) return frame.raw;
  const pairs: string[] = [];
  for (let i = 0; i + 1 < children.length; i += 2) {
    pairs.push(children[i]!.raw.toString('latin1') + children[i + 1]!.raw.toString('latin1'));
  }
  return header(frame) + pairs.sort().join('');
};

/** Positive integers become ":<positive>": TTL/PTTL whose exact value depends on timing; -1/-2 are kept. */
export const positive: Normaliser = (frame) => {
  const raw = frame.raw.toString('latin1');
  return frame.type === ':' && Number(raw.slice(1, -2)) > 0 ? ':<positive>\r\n' : raw;
};

/** SCAN: a non-zero cursor is opaque (Redis's walks hash buckets), the keys' order is too. */
export const scanReply: Normaliser = (frame) => {
  const [cursor, keys] = frame.children ?? [];
  if (cursor === undefined || keys === undefined) return frame.raw;
  const c = cursor.raw.toString('latin1') === '$1\r\n0\r\n' ? '0' : '<cursor>';
  return `${header(frame)}${c}|${sorted(keys).toString()}`;
};

/** Only the reply's type: for replies that are random by definition (RANDOMKEY). */
export const typeOnly: Normaliser = (frame) => `${frame.type}<masked>`;

/** COMMAND INFO without the key specs and tips (owned by COMMAND's implementation, not by the specs). */
export const commandInfoHead: Normaliser = (frame) => {
  const info = frame.children?.[0];
  if (info?.children === undefined) return frame.raw;
  return info.children.slice(0, 7).map((c) => c.raw.toString('latin1')).join('');
};

/** Several replies compared as a multiset: Redis's UNSUBSCRIBE of all confirms in hash-table order. */
export const sortedReplies: Normaliser = (frame) =>
  (frame.children ?? [frame]).map((c) => c.raw.toString('latin1')).sort().join('');

export const masks = { sortedReplies, sorted, sortedMap, positive, scanReply, typeOnly, commandInfoHead } as const;
export type MaskName = keyof typeof masks;

export function normaliser(mask: MaskName | Normaliser): Normaliser {
  return typeof mask === 'function' ? mask : masks[mask];
}

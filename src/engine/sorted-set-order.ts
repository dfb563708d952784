// The order of a Redis sorted set, shared by its packed and chunked forms: by score, then
// bytewise by member (latin1 strings, one char per byte), as Redis's zsl and sdscmp order them.

export interface ScoreEntry {
  member: string;
  score: number;
}

/** Orders two entries as Redis's zsl does: by score, then bytewise by member. */
export function compareEntries(scoreA: number, memberA: string, scoreB: number, memberB: string): number {
  if (scoreA < scoreB) return -1;
  if (scoreA > scoreB) return 1;
  return memberA < memberB ? -1 : memberA > memberB ? 1 : 0;
}

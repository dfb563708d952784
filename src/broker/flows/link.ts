// How a flow's child names its parent, in its stream entry and in its record (flows/):
//
//   entry fields  flow-parent      JSON [parentStream, parentId]
//                 flow-on-failure  'fail-parent' | 'ignore' | 'remove'
//   record        parent, onFailure (the same values; record.ts)
//
// A parent's sets and hashes (jobs/keys.ts: dependencies, processed, ignored) hold its children
// as members `JSON [childStream, childId]`, so two streams may use the same job id.
export type OnFailure = 'fail-parent' | 'ignore' | 'remove';

export const ON_FAILURE: readonly OnFailure[] = ['fail-parent', 'ignore', 'remove'];

export const FlowFields = {
  parent: 'flow-parent',
  onFailure: 'flow-on-failure',
} as const;

/** A job of a flow, by its stream and id. */
export interface JobAddress {
  stream: string;
  id: string;
}

/** A child's parent and what its failure does to it. */
export interface ParentLink extends JobAddress {
  onFailure: OnFailure;
}

export function memberOf(job: JobAddress): string {
  return JSON.stringify([job.stream, job.id]);
}

export function addressOf(member: string): JobAddress | null {
  try {
    const v = JSON.parse(member) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { stream: v[0], id: v[1] };
  } catch {
    // not a member written by sluice
  }
  return null;
}

/** The parent a flow child's entry (or record) names, or null for any other job. */
export function parentOf(parent: string | undefined, onFailure: string | undefined): ParentLink | null {
  if (parent === undefined) return null;
  const at = addressOf(parent);
  if (at === null) return null;
  const policy = ON_FAILURE.includes(onFailure as OnFailure) ? (onFailure as OnFailure) : 'fail-parent';
  return { ...at, onFailure: policy };
}

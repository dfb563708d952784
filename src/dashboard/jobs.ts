// The job view's reads: a stream's jobs by state with the counts (Queue.getJobs / getJobCounts),
// one job's detail (its record, log lines, timeline and its events from the `PREFIX:events`
// stream), and a search for a job id across the streams the dashboard lists. Every one only
// reads; the buttons' actions are job-actions.ts. Each request's Queue is closed after it (its
// management link, if one was opened).
import type { Connection, Value } from '../client/connection.js';
import { jobKeys } from '../broker/jobs/keys.js';
import { readRecords } from '../broker/jobs/archive.js';
import { JOB_STATES, type JobState, RecordField } from '../broker/jobs/record.js';
import { type FlowTree, readFlow } from '../broker/flows/tree.js';
import { addressOf } from '../broker/flows/link.js';
import { type JobCounts, type JobInfo, Queue } from '../broker/queue.js';
import { pairsToObject } from '../broker/replies.js';
import { HttpError } from './http.js';
import { listedStreams } from './overview.js';

/** A job as the list shows it: its record without the stack (the detail has it). */
export type JobSummary = Omit<JobInfo, 'stacktrace'>;

export interface JobList {
  stream: string;
  state: JobState;
  counts: JobCounts;
  start: number;
  items: JobSummary[];
  /** Whether jobs follow this page in the state. */
  more: boolean;
}

export interface JobEvent {
  /** The event's stream id (its time: the ms before the dash). */
  id: string;
  event: string;
  fields: Record<string, string>;
}

export interface TimelineStep {
  at: number;
  what: string;
  /** The event's id, when the step is an event. */
  eventId?: string;
}

export interface JobDetail {
  job: JobInfo;
  logs: string[];
  eventsStream: string;
  /** The job's events, oldest first. */
  events: JobEvent[];
  /** True when the scan stopped before the events stream's end (a very busy queue). */
  eventsTruncated: boolean;
  /** The record's timestamps and the events, in time order. */
  timeline: TimelineStep[];
  /** The flow the job belongs to (docs/flows.md), from its root down; null for a job of no flow. */
  flow: FlowTree | null;
}

/** Job ids are the producer's strings: anything non-empty, but not unbounded. */
export function checkJobId(id: string): string {
  if (id === '' || id.length > 1024) throw new HttpError(400, 'a job id is 1 to 1024 characters');
  return id;
}

export function checkState(raw: string | null): JobState {
  const state = (raw ?? 'waiting') as JobState;
  if (!JOB_STATES.includes(state)) throw new HttpError(400, `state must be one of ${JOB_STATES.join(', ')}`);
  return state;
}

/** The stream's Queue, looking through `group` (needed when the stream has several). */
async function queueOf(conn: Connection, stream: string, group: string | undefined): Promise<Queue> {
  if (group !== undefined) {
    let names: string[] = [];
    try {
      names = ((await conn.call('XINFO', 'GROUPS', stream)) as Value[]).map((g) => String(pairsToObject(g as Value)['name']));
    } catch {
      // no such stream (yet: its jobs may all be delayed): no group either
    }
    if (!names.includes(group)) throw new HttpError(404, `no consumer group ${group} on ${stream}`);
  }
  return new Queue(conn, { stream, ...(group === undefined ? {} : { group }) });
}

/** Queue's RangeError (several groups, none named) is the caller's to fix: a 400. */
async function asked<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RangeError) throw new HttpError(400, `${err.message}; pass ?group=NAME`);
    throw err;
  }
}

const summary = (job: JobInfo): JobSummary => {
  const { stacktrace: _stack, ...rest } = job;
  return rest;
};

/** The record's fields of a JobView, without the Queue it holds. */
const plain = (job: JobInfo): JobInfo => {
  const { queue: _queue, ...info } = job as JobInfo & { queue?: unknown };
  return info;
};

/** A page of the stream's jobs in `state` and the counts of every state. */
export async function listJobs(conn: Connection, stream: string, options: { state: JobState; start: number; count: number; group?: string }): Promise<JobList> {
  const queue = await queueOf(conn, stream, options.group);
  try {
    return await listOf(queue, stream, options);
  } finally {
    await queue.close();
  }
}

function listOf(queue: Queue, stream: string, options: { state: JobState; start: number; count: number }): Promise<JobList> {
  return asked(async () => {
    const counts = await queue.getJobCounts();
    const jobs = await queue.getJobs(options.state, options.start, options.start + options.count);
    return {
      stream,
      state: options.state,
      counts,
      start: options.start,
      items: jobs.slice(0, options.count).map((j) => summary(plain(j))),
      more: jobs.length > options.count,
    };
  });
}

/** Events scanned per XRANGE, and at most this many pages (the stream is capped at ~10,000 by default). */
const EVENTS_PAGE = 1000;
const EVENTS_PAGES = 20;
/** The scan starts this long before the job was added: the producer's clock may run ahead of the server's. */
const CLOCK_SLACK_MS = 60_000;

/** The job's events in its stream's events stream, from shortly before it was added. */
async function eventsOf(conn: Connection, key: string, jobId: string, addedAt: number): Promise<{ events: JobEvent[]; truncated: boolean }> {
  const events: JobEvent[] = [];
  let start = String(Math.max(0, addedAt - CLOCK_SLACK_MS));
  for (let page = 0; page < EVENTS_PAGES; page++) {
    const rows = (await conn.call('XRANGE', key, start, '+', 'COUNT', EVENTS_PAGE)) as Array<[Value, Value[]]>;
    for (const [id, list] of rows) {
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < list.length; i += 2) fields[String(list[i])] = String(list[i + 1]);
      if (fields['jobId'] !== jobId) continue;
      const { event = '', jobId: _id, ...rest } = fields;
      events.push({ id: String(id), event, fields: rest });
    }
    if (rows.length < EVENTS_PAGE) return { events, truncated: false };
    start = `(${String(rows[rows.length - 1]![0])}`;
  }
  return { events, truncated: true };
}

function timelineOf(job: JobInfo, events: JobEvent[]): TimelineStep[] {
  const steps: TimelineStep[] = [];
  const stamp = (at: number | undefined, what: string): void => {
    if (at !== undefined && at > 0) steps.push({ at, what });
  };
  stamp(job.addedAt, 'added');
  stamp(job.dueAt, 'due');
  stamp(job.startedAt, 'last started');
  stamp(job.finishedAt, job.state === 'failed' ? 'failed' : 'finished');
  for (const e of events) steps.push({ at: Number(e.id.split('-')[0]), what: `event ${e.event}`, eventId: e.id });
  // Stable: at the same ms, the record's stamps come before the events.
  return steps.sort((a, b) => a.at - b.at);
}

/** One job's detail; 404 when the stream has no record of it. */
export async function readJob(conn: Connection, stream: string, id: string): Promise<JobDetail> {
  const queue = new Queue(conn, { stream });
  try {
    return await detailOf(conn, queue, stream, id);
  } finally {
    await queue.close();
  }
}

async function detailOf(conn: Connection, queue: Queue, stream: string, id: string): Promise<JobDetail> {
  const job = await queue.getJob(id);
  if (job === null) throw new HttpError(404, `no job ${id} in ${stream} (never added, removed, or removed by retention)`);
  const info = plain(job);
  const keys = jobKeys(stream);
  const [logs, found] = await Promise.all([queue.getJobLogs(id), eventsOf(conn, keys.events, id, job.addedAt)]);
  return { job: info, logs, eventsStream: keys.events, events: found.events, eventsTruncated: found.truncated, timeline: timelineOf(info, found.events), flow: await flowOf(conn, stream, id) };
}

/** flows: the tree of the flow holding this job, read from its root (found by climbing `parent`). */
async function flowOf(conn: Connection, stream: string, id: string): Promise<FlowTree | null> {
  let at = { stream, id };
  for (let depth = 0; depth < 32; depth++) {
    const parent = (await readRecords(conn, [{ keys: jobKeys(at.stream), id: at.id }]))[0]?.[RecordField.parent];
    const up = parent === null || parent === undefined ? null : addressOf(String(parent));
    if (up === null) break;
    at = up;
  }
  const tree = await readFlow(conn, at);
  return tree === null || (tree.children.length === 0 && at.id === id && at.stream === stream) ? null : tree;
}

export interface JobSearch {
  id: string;
  /** The streams that hold a record of the job, with its state there. */
  matches: Array<{ stream: string; state: string }>;
  /** Streams looked in (those the job view offers, from at most maxStreams found). */
  searched: number;
}

/** Looks for a job id in every listed stream: its record, pipelined, else the archive (jobs/archive.ts). */
export async function searchJob(conn: Connection, id: string, maxStreams: number): Promise<JobSearch> {
  const listed = await listedStreams(conn, maxStreams);
  const names = [...listed.names, ...listed.jobsOnly];
  const records = await readRecords(conn, names.map((s) => ({ keys: jobKeys(s), id })));
  const matches = names.flatMap((stream, i) => {
    const r = records[i];
    return r === null || r === undefined ? [] : [{ stream, state: r[RecordField.state] ?? 'waiting' }];
  });
  return { id, matches, searched: names.length };
}

/** The streams the job view offers: the listed streams and the queues known only by their events. */
export async function jobStreams(conn: Connection, maxStreams: number): Promise<{ streams: string[]; truncated: boolean }> {
  const listed = await listedStreams(conn, maxStreams);
  return { streams: [...listed.names, ...listed.jobsOnly].sort(), truncated: listed.truncated };
}

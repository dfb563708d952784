// A fairness move on Redis and Valkey as one script call inside the mover's MULTI (taker.ts):
// the jobs taken go from their lanes into the stream on the server, so the client neither reads
// the lanes' elements nor sends them back as XADDs (a job's fields crossed the link twice more,
// and were decoded and encoded on the way). The taker reads the lanes' lengths instead of
// their heads, picks keys in turns as elsewhere, and sends each pick as (lane, index, key, slot
// token); the script reads each lane's head once, adds the picks' entries in that order (the
// token as `fair-slot`), writes each job's record its entry id (entry-link.ts's HSETNX, undone
// for a record deleted meanwhile), then runs the move's other commands (LTRIM of the lanes,
// slots, windows, the index's scores, the guard) and returns the entries' ids.
//
// An element that is not one of ours (not a JSON array of an even number of strings) is moved
// verbatim as `fair-element`, as the commands' path does, so the worker dead-letters it. An
// XADD refused (the stream key holding another type) ends the script before the lanes are
// trimmed: those jobs stay in their lanes (the ones added before it are then added again: at
// least once, as a resent move would be).
import { createHash } from 'node:crypto';
import { Fields } from '../codec.js';
import { RecordField } from '../jobs/record.js';
import { FAIR_KEY_FIELD, FAIR_SLOT_FIELD } from './lanes.js';
import { MAX_UNPACKED } from '../lua-json.js';

/**
 * KEYS[1]: the stream. ARGV[1]: JSON { p: [[lane, index, key, token or ""], ...], r: [[command,
 * arg...], ...] }; ARGV[2]: the records' key prefix (jobKeys(stream).record('')). Returns the
 * picks' entry ids, in order.
 */
export const FAIR_MOVE_SCRIPT = `local a = cjson.decode(ARGV[1])
local last = {}
for _, p in ipairs(a.p) do
  if (last[p[1]] or -1) < p[2] then last[p[1]] = p[2] end
end
local heads = {}
for lane, n in pairs(last) do heads[lane] = redis.call('LRANGE', lane, 0, n) end
local ids = {}
for i, p in ipairs(a.p) do
  local element = heads[p[1]][p[2] + 1]
  local ok, f = pcall(cjson.decode, element)
  local good = ok and type(f) == 'table' and #f > 0 and #f % 2 == 0 and #f < ${MAX_UNPACKED}
  if good then
    for _, x in ipairs(f) do
      if type(x) ~= 'string' then good = false break end
    end
  end
  local id, job
  if good then
    for k = 1, #f - 1, 2 do
      if f[k] == '${Fields.jobId}' then job = f[k + 1] break end
    end
    if p[4] ~= '' then
      f[#f + 1] = '${FAIR_SLOT_FIELD}'
      f[#f + 1] = p[4]
    end
    id = redis.pcall('XADD', KEYS[1], '*', unpack(f))
  else
    id = redis.pcall('XADD', KEYS[1], '*', 'fair-element', element, '${FAIR_KEY_FIELD}', p[3])
  end
  if type(id) == 'table' and id.err then return id end
  ids[i] = id
  if job then
    local record = ARGV[2] .. job
    if redis.call('HSETNX', record, '${RecordField.entry}', id) == 1 and redis.call('HLEN', record) == 1 then redis.call('HDEL', record, '${RecordField.entry}') end
  end
end
for _, c in ipairs(a.r) do
  local reply = redis.pcall(unpack(c))
  if type(reply) == 'table' and reply.err then return reply end
end
return ids`;

export const FAIR_MOVE_SHA1 = createHash('sha1').update(FAIR_MOVE_SCRIPT).digest('hex');

/** One job taken: its lane, its index there, its key, and its slot's token ('' without per-key concurrency). */
export type Pick = [lane: string, index: number, key: string, token: string];

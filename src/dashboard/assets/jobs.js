// The page's job view: a stream's jobs by state with the counts, a search by id, and one job's
// detail (data, options, attempts, return value or error with its stack, progress, logs, a
// timeline and its events), with Retry / Promote / Remove buttons (POST .../jobs/ID/ACTION). app.js gives it the page's helpers and calls refresh() every
// interval; the detail opens on `#job=STREAM/ID`. Values reach the page as text, never HTML.

/** The order of the state buttons; a state the server counts and this list lacks goes last. */
const STATES = ['waiting', 'prioritized', 'waiting-children', 'active', 'retrying', 'delayed', 'completed', 'failed'];

/** The buttons a job in a state has (what Queue.retryJob / remove / promote accept). */
function actionsFor(state) {
  const out = [];
  if (state === 'failed') out.push('retry');
  if (state === 'delayed') out.push('promote');
  if (['waiting', 'prioritized', 'delayed', 'completed', 'failed'].includes(state)) out.push('remove');
  return out;
}
const LABEL = { retry: 'Retry', promote: 'Promote', remove: 'Remove' };
const PAGE = 20;

export function createJobsView({ h, $, api, act, seg, time, reportError }) {
  const view = {
    streams: [],
    stream: null,
    group: '',
    state: 'waiting',
    start: 0,
    detail: null, // { stream, id } of the open job
  };
  const shown = new Map();
  const changed = (key, data) => {
    const text = JSON.stringify(data);
    if (shown.get(key) === text) return false;
    shown.set(key, text);
    return true;
  };
  const json = (v) => (v === undefined ? '–' : JSON.stringify(v, null, 2));
  const short = (v) => {
    if (v === undefined) return '';
    const text = JSON.stringify(v);
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  };
  const jobHash = (stream, id) => `#job=${seg(stream)}/${seg(id)}`;

  async function refreshList() {
    const offered = await api('jobs');
    view.streams = offered.streams;
    if (view.stream === null || !view.streams.includes(view.stream)) view.stream = view.streams[0] ?? null;
    if (changed('job-streams', [view.streams, view.stream])) {
      $('jobs-stream').replaceChildren(...view.streams.map((s) => h('option', { value: s, selected: s === view.stream }, s)));
    }
    if (view.stream === null) {
      $('jobs').tBodies[0].replaceChildren(h('tr', {}, h('td', { colspan: 8, className: 'muted' }, 'no streams')));
      return;
    }
    const groupQuery = view.group === '' ? '' : `&group=${seg(view.group)}`;
    let list;
    try {
      list = await api(`streams/${seg(view.stream)}/jobs?state=${view.state}&start=${view.start}&count=${PAGE}${groupQuery}`);
    } catch (err) {
      // A stream with several groups: the view needs to know whose point of view to take.
      if (err.status === 400 && /group/.test(err.message) && view.group === '') {
        const stream = (await api(`streams/${seg(view.stream)}`).catch(() => null));
        const groups = stream ? stream.groups.map((g) => g.name) : [];
        if (groups.length > 1) {
          view.group = groups[0];
          return refreshList();
        }
      }
      throw err;
    }
    if (!changed('jobs', [list, view.group])) return;
    renderGroups(list);
    const states = [...STATES.filter((s) => s in list.counts), ...Object.keys(list.counts).filter((s) => !STATES.includes(s))];
    $('job-states').replaceChildren(...states.map((s) =>
      h('button', { type: 'button', 'data-job-state': s, 'aria-pressed': s === view.state ? 'true' : 'false', onclick: () => { view.state = s; view.start = 0; refreshList().catch(reportError); } },
        `${s} `, h('span', { className: 'count' }, list.counts[s] ?? 0))));
    $('jobs').tBodies[0].replaceChildren(...list.items.map((j) =>
      h('tr', { 'data-job': j.id },
        h('td', { className: 'id' }, h('a', { className: 'stream', href: jobHash(j.stream, j.id) }, j.id)),
        h('td', {}, j.state),
        h('td', { className: 'num' }, j.attemptsMade),
        h('td', {}, time(j.addedAt)),
        h('td', {}, j.state === 'delayed' ? `due ${time(j.dueAt)}` : time(j.finishedAt ?? 0)),
        h('td', { className: 'wrap' }, h('code', {}, short(j.data))),
        h('td', { className: `wrap${j.state === 'failed' ? ' bad' : ''}` }, j.state === 'completed' ? h('code', {}, short(j.returnValue)) : (j.failedReason ?? '')),
        h('td', {}, ...buttons(j.stream, j.id, j.state)))));
    if (list.items.length === 0) $('jobs').tBodies[0].append(h('tr', {}, h('td', { colspan: 8, className: 'muted' }, `no ${view.state} jobs`)));
    $('jobs-newer').disabled = view.start === 0;
    $('jobs-more').disabled = !list.more;
  }

  /** Retry / Promote / Remove for a job in `state`; Remove asks first. */
  function buttons(stream, id, state) {
    return actionsFor(state).map((a) =>
      h('button', { type: 'button', 'data-job-action': a, className: a === 'remove' ? 'danger' : '', onclick: () => act(`streams/${seg(stream)}/jobs/${seg(id)}/${a}`, {}, a === 'remove' ? `Remove job ${id} from ${stream}?` : undefined) }, LABEL[a]));
  }

  function renderGroups(list) {
    const label = $('jobs-group-label');
    if (view.group === '') {
      label.hidden = true;
      return;
    }
    api(`streams/${seg(list.stream)}`).then((s) => {
      label.hidden = false;
      $('jobs-group').replaceChildren(...s.groups.map((g) => h('option', { value: g.name, selected: g.name === view.group }, g.name)));
    }, () => {});
  }

  function field(name, ...value) {
    return [h('dt', {}, name), h('dd', {}, ...value)];
  }

  // flows: one node of the flow tree (stream, id linking to its detail, state), its children below.
  function flowNode(n, stream, id) {
    const here = n.stream === stream && n.id === id;
    return h('li', { 'data-flow-job': n.id, 'data-flow-state': n.state },
      h('a', { href: `#job=${seg(n.stream)}/${seg(n.id)}`, className: here ? 'id here' : 'id' }, n.id),
      ' ', h('small', { className: 'muted' }, n.stream), ' ',
      h('span', { className: n.state === 'failed' ? 'bad' : n.state === 'completed' ? 'ok' : '' }, n.state),
      ...(n.failedReason && n.state === 'failed' ? [' ', h('small', { className: 'bad' }, n.failedReason)] : []),
      ...(n.children.length > 0 ? [h('ul', {}, ...n.children.map((c) => flowNode(c, stream, id)))] : []));
  }

  async function refreshDetail() {
    if (view.detail === null) {
      $('job-detail').hidden = true;
      return;
    }
    const { stream, id } = view.detail;
    let d;
    try {
      d = await api(`streams/${seg(stream)}/jobs/${seg(id)}`);
    } catch (err) {
      if (err.status !== 404) throw err;
      if (!changed('job-detail', err.message)) return;
      $('job-detail').hidden = false;
      $('job-detail').dataset.job = id;
      $('job-detail').dataset.state = 'gone';
      $('job-detail-id').textContent = id;
      $('job-detail-stream').textContent = `in ${stream}`;
      $('job-detail-actions').replaceChildren();
      $('job-detail-body').replaceChildren(h('p', { id: 'job-gone', className: 'muted' }, err.message));
      return;
    }
    if (!changed('job-detail', d)) return;
    const j = d.job;
    $('job-detail').hidden = false;
    $('job-detail').dataset.job = j.id;
    $('job-detail').dataset.state = j.state;
    $('job-detail-id').textContent = j.id;
    $('job-detail-stream').textContent = `in ${stream}`;
    $('job-detail-actions').replaceChildren(...buttons(stream, j.id, j.state));
    const outcome = j.state === 'completed'
      ? [h('h3', {}, 'Return value'), h('pre', { id: 'job-return' }, json(j.returnValue))]
      : j.failedReason !== undefined
        ? [h('h3', {}, 'Error'), h('p', { id: 'job-error', className: 'bad' }, j.failedReason), h('pre', { id: 'job-stack' }, j.stacktrace ?? '(no stack)')]
        : [];
    const first = d.timeline[0]?.at ?? 0;
    $('job-detail-body').replaceChildren(
      h('dl', { className: 'fields' },
        ...field('state', h('span', { id: 'job-state', className: j.state === 'failed' ? 'bad' : j.state === 'completed' ? 'ok' : '' }, j.state)),
        ...field('attempts made', h('span', { id: 'job-attempts' }, j.attemptsMade)),
        ...field('progress', h('code', { id: 'job-progress' }, json(j.progress))),
        ...field('consumer', j.consumer ?? '–'),
        ...field('entry', h('span', { className: 'id' }, j.entryId ?? '–')),
        ...field('key', j.key ?? '–')),
      h('div', { className: 'columns' },
        h('div', {}, h('h3', {}, 'Data'), h('pre', { id: 'job-data' }, json(j.data))),
        h('div', {}, h('h3', {}, 'Options'), h('pre', { id: 'job-opts' }, json(j.opts)))),
      ...outcome,
      ...(d.flow ? [h('h3', {}, 'Flow ', h('small', {}, 'a parent runs once its children are done')), h('ul', { id: 'job-flow', className: 'flow' }, flowNode(d.flow, stream, j.id))] : []),
      h('h3', {}, 'Logs ', h('small', {}, `${d.logs.length} lines`)),
      d.logs.length === 0 ? h('p', { className: 'muted' }, 'none') : h('ol', { id: 'job-logs' }, ...d.logs.map((l) => h('li', {}, h('code', {}, l)))),
      h('h3', {}, 'Timeline ', h('small', {}, 'the record\'s timestamps and the job\'s events')),
      h('table', { id: 'job-timeline' },
        h('thead', {}, h('tr', {}, h('th', {}, 'time'), h('th', { className: 'num' }, '+ms'), h('th', {}, 'what'), h('th', {}, 'fields'))),
        h('tbody', {}, ...d.timeline.map((s) => {
          const event = s.eventId === undefined ? null : d.events.find((e) => e.id === s.eventId);
          return h('tr', { 'data-step': s.what },
            h('td', {}, time(s.at)),
            h('td', { className: 'num' }, s.at - first),
            h('td', {}, s.what),
            h('td', { className: 'wrap' }, event ? h('code', {}, Object.entries(event.fields).map(([k, v]) => `${k}=${v}`).join('  ')) : ''));
        }))),
      ...(d.eventsTruncated ? [h('p', { className: 'muted' }, `events read from ${d.eventsStream} stopped before its end`)] : []));
  }

  async function search(ev) {
    ev.preventDefault();
    const id = $('job-search-input').value.trim();
    if (id === '') return;
    const out = $('job-search-result');
    try {
      const found = await api(`jobs/${seg(id)}`);
      if (found.matches.length === 1) {
        out.textContent = '';
        location.hash = jobHash(found.matches[0].stream, id);
        return;
      }
      out.replaceChildren(found.matches.length === 0
        ? h('span', { className: 'bad' }, `no job ${id} in ${found.searched} streams`)
        : h('span', {}, 'in ', ...found.matches.flatMap((m, i) => [i > 0 ? ', ' : '', h('a', { className: 'stream', href: jobHash(m.stream, id) }, `${m.stream} (${m.state})`)])));
    } catch (err) {
      reportError(err);
    }
  }

  function onHash() {
    const m = /^#job=([^/]*)\/(.*)$/.exec(location.hash);
    const next = m ? { stream: decodeURIComponent(m[1]), id: decodeURIComponent(m[2]) } : null;
    view.detail = next;
    shown.delete('job-detail');
    if (next === null) {
      $('job-detail').hidden = true;
      return;
    }
    refreshDetail().then(() => $('job-detail').scrollIntoView({ block: 'start' }), reportError);
  }

  $('job-search').addEventListener('submit', search);
  $('jobs-stream').addEventListener('change', () => {
    view.stream = $('jobs-stream').value;
    view.group = '';
    view.start = 0;
    refreshList().catch(reportError);
  });
  $('jobs-group').addEventListener('change', () => {
    view.group = $('jobs-group').value;
    view.start = 0;
    refreshList().catch(reportError);
  });
  $('jobs-newer').addEventListener('click', () => {
    view.start = Math.max(0, view.start - PAGE);
    refreshList().catch(reportError);
  });
  $('jobs-more').addEventListener('click', () => {
    view.start += PAGE;
    refreshList().catch(reportError);
  });
  $('job-detail-close').addEventListener('click', () => { location.hash = ''; });

  return {
    onHash,
    async refresh() {
      await refreshList();
      await refreshDetail();
    },
  };
}

// The dashboard page: reads the JSON API (relative URLs, so it works under any mount path),
// redraws the tables and charts every sampling interval, and runs the actions as POSTs.
// Every value from the server reaches the page as text nodes, never as HTML.
import { LiveChart, seriesOf } from './charts.js';
import { createJobsView } from './jobs.js';

const TOKEN_KEY = 'sluice-dashboard-token';
/** A consumer idle longer than this while holding pending entries is flagged. */
const STALE_MS = 60_000;
const PAGE = 20;

const state = {
  token: sessionStorage.getItem(TOKEN_KEY),
  info: null,
  streams: [],
  history: [],
  keep: 180,
  selected: null,
  entryCursors: [], // `before` ids of the entry pages shown so far (paging back to newer ones)
  timer: null,
};

const $ = (id) => document.getElementById(id);

/**
 * Whether `data` differs from what `key` last showed: sections are rebuilt only then, so a
 * refresh does not replace the buttons under the pointer or lose a text selection.
 */
const shown = new Map();
function changed(key, data) {
  const text = JSON.stringify(data);
  if (shown.get(key) === text) return false;
  shown.set(key, text);
  return true;
}

/** Builds an element: attributes (on* become listeners) and children (strings become text). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'className') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}

const show = (v) => (v === null || v === undefined ? '–' : String(v));

function duration(ms) {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} m ${s % 60} s`;
  const hrs = Math.floor(m / 60);
  if (hrs < 48) return `${hrs} h ${m % 60} m`;
  return `${Math.floor(hrs / 24)} d ${hrs % 24} h`;
}

const time = (ms) => (ms > 0 ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) : '–');
const rate = (r) => (r === null ? '–' : r < 10 ? r.toFixed(2) : r.toFixed(0));

function payloadCell(item) {
  if (item.payloadError !== undefined) {
    return h('td', { className: 'wrap' }, h('span', { className: 'bad' }, item.payloadError), ' ', h('code', {}, item.fields.payload ?? ''));
  }
  if (!('payload' in item)) return h('td', { className: 'muted' }, '(no payload field)');
  const text = JSON.stringify(item.payload);
  return h('td', { className: 'wrap' }, h('code', { title: text }, text.length > 300 ? `${text.slice(0, 300)}…` : text));
}

function otherFields(fields) {
  const rest = Object.entries(fields).filter(([k]) => k !== 'payload');
  return h('td', { className: 'wrap' }, h('code', {}, rest.map(([k, v]) => `${k}=${v}`).join('  ')));
}

// --- API ------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function api(path, body) {
  const headers = {};
  if (state.token) headers.authorization = `Bearer ${state.token}`;
  const init = { headers };
  if (body !== undefined) {
    init.method = 'POST';
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(`api/${path}`, init);
  const json = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (res.status === 401) {
    $('token-form').hidden = false;
    throw new ApiError(401, json.error);
  }
  if (!res.ok) throw new ApiError(res.status, json.error ?? `HTTP ${res.status}`);
  return json;
}

const seg = (s) => encodeURIComponent(s);

function reportError(err) {
  $('error').hidden = false;
  $('error').textContent = err.message;
}

function clearError() {
  $('error').hidden = true;
}

/** Runs an action, then refreshes what it changed; errors land in the banner. */
async function act(path, body, confirmText) {
  if (confirmText && !window.confirm(confirmText)) return;
  try {
    const result = await api(path, body);
    clearError();
    $('status').textContent = `done: ${JSON.stringify(result)}`;
  } catch (err) {
    reportError(err);
  }
  await refresh();
}

// --- overview tables ------------------------------------------------------------------------

function streamLink(name) {
  return h('a', { className: 'stream', href: `#stream=${seg(name)}` }, name);
}

/** The fair keys' backlog: keys and jobs waiting, the busiest keys listed (docs/fairness.md). */
function fairCell(fair) {
  if (!fair || fair.keys === 0) return h('td', { className: 'fair muted' }, '-');
  const top = fair.top.map((k) => `${k.key} ${k.waiting}`).join(', ');
  return h('td', { className: 'fair', title: `busiest keys: ${top}` }, `${fair.keys} keys, ${fair.waiting} waiting: ${top}`);
}

function renderStreams() {
  const body = $('streams').tBodies[0];
  body.replaceChildren(
    ...state.streams.map((s) =>
      h('tr', { 'data-stream': s.name },
        h('td', {}, streamLink(s.name)),
        h('td', { className: 'num' }, s.length),
        h('td', { className: 'id' }, show(s.firstId)),
        h('td', { className: 'id' }, show(s.lastId)),
        h('td', { className: 'num' }, show(s.entriesAdded)),
        h('td', { className: 'num' }, rate(s.rate)),
        h('td', { className: 'num' }, s.groups.length),
        h('td', { className: `num${s.deadLetters > 0 ? ' bad' : ''}` }, show(s.deadLetters)),
        h('td', { className: 'num', title: s.delayed.nextDue === null ? '' : `next due ${new Date(s.delayed.nextDue).toISOString()}` }, s.delayed.count),
        h('td', {}, s.schedules.map((sc) => `${sc.id} (${sc.every}) next ${new Date(sc.next).toISOString()}`).join(', ') || '-'),
        fairCell(s.fair))),
  );
  if (state.streams.length === 0) body.append(h('tr', {}, h('td', { colspan: 11, className: 'muted' }, 'no streams')));
  const note = $('streams-note');
  note.hidden = !state.info?.streamsTruncated;
  note.textContent = `only the first ${state.info?.maxStreams} streams are listed`;
}

function renderGroups() {
  const rows = [];
  const consumers = [];
  for (const s of state.streams) {
    for (const g of s.groups) {
      const behind = g.lag === null || g.lag > 0;
      rows.push(
        h('tr', { className: behind ? 'behind' : '', 'data-group': `${s.name}/${g.name}` },
          h('td', {}, streamLink(s.name)),
          h('td', {}, g.name),
          h('td', { className: `num lag${g.lag !== null && g.lag > 0 ? ' bad' : ''}` }, g.lag === null ? 'unknown' : g.lag),
          h('td', { className: `num${g.pending > 0 ? ' warn' : ''}` }, g.pending),
          h('td', { className: 'id' }, g.lastDeliveredId),
          h('td', { className: 'num' }, g.consumers.length),
          h('td', {},
            h('span', { className: g.paused ? 'warn' : 'ok' }, g.paused ? 'paused' : 'running'), ' ',
            h('button', { type: 'button', 'data-action': g.paused ? 'resume' : 'pause', onclick: () => act(`streams/${seg(s.name)}/groups/${seg(g.name)}/${g.paused ? 'resume' : 'pause'}`, {}) }, g.paused ? 'Resume' : 'Pause'))),
      );
      for (const c of g.consumers) {
        const stale = c.idleMs > STALE_MS;
        const verdict = stale && c.pending > 0 ? h('span', { className: 'bad' }, 'stuck: idle with pending') : stale ? h('span', { className: 'warn' }, 'idle') : h('span', { className: 'ok' }, 'active');
        consumers.push(
          h('tr', { 'data-consumer': `${s.name}/${g.name}/${c.name}` },
            h('td', {}, streamLink(s.name)),
            h('td', {}, g.name),
            h('td', {}, c.name),
            h('td', { className: 'num' }, c.pending),
            h('td', { className: 'num', title: `${c.idleMs} ms` }, duration(c.idleMs)),
            h('td', {}, verdict)),
        );
      }
    }
  }
  $('groups').tBodies[0].replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: 7, className: 'muted' }, 'no consumer groups'))]));
  $('consumers').tBodies[0].replaceChildren(...(consumers.length ? consumers : [h('tr', {}, h('td', { colspan: 6, className: 'muted' }, 'no consumers'))]));
}

async function renderDeadLetters() {
  const withLetters = state.streams.filter((s) => s.deadLetters > 0);
  const pages = await Promise.all(withLetters.map((s) => api(`streams/${seg(s.name)}/dead-letters?count=${PAGE}`).then((p) => [s, p])));
  if (!changed('dead-letters', pages)) return;
  const blocks = pages.map(([s, page]) => {
    const base = `streams/${seg(s.name)}/dead-letters`;
    return h('div', { className: 'dlq', 'data-dlq': s.name },
      h('div', { className: 'dlq-head' },
        h('strong', {}, s.deadLetterStream), h('span', { className: 'muted' }, `${s.deadLetters} dead letters of `), streamLink(s.name),
        h('button', { type: 'button', onclick: () => act(`${base}/retry`, { all: true }) }, 'Retry all'),
        h('button', { type: 'button', className: 'danger', onclick: () => act(`${base}/purge`, { all: true }, `Delete all ${s.deadLetters} dead letters of ${s.name}?`) }, 'Purge all')),
      h('table', {},
        h('thead', {}, h('tr', {}, ...['id', 'source id', 'group', 'consumer', 'deliveries', 'error', 'failed at', 'payload', ''].map((t) => h('th', { className: t === 'deliveries' ? 'num' : '' }, t)))),
        h('tbody', {}, ...page.items.map((d) =>
          h('tr', { 'data-dead-letter': d.id },
            h('td', { className: 'id' }, d.id),
            h('td', { className: 'id' }, d.sourceId),
            h('td', {}, d.group),
            h('td', {}, d.consumer),
            h('td', { className: 'num' }, d.deliveries),
            h('td', { className: 'wrap bad' }, d.error),
            h('td', {}, time(d.failedAt)),
            payloadCell(d),
            h('td', {},
              h('button', { type: 'button', onclick: () => act(`${base}/retry`, { ids: [d.id] }) }, 'Retry'), ' ',
              h('button', { type: 'button', className: 'danger', onclick: () => act(`${base}/purge`, { ids: [d.id] }, `Delete dead letter ${d.id}?`) }, 'Purge')))))),
      page.next === null ? null : h('p', { className: 'muted' }, `showing the oldest ${page.items.length}`));
  });
  $('dead-letters').replaceChildren(...(blocks.length ? blocks : [h('p', { className: 'muted' }, 'none')]));
}

// --- live charts ----------------------------------------------------------------------------

const charts = { rate: null, lag: null };

async function refreshCharts() {
  const since = state.history.length ? state.history[state.history.length - 1].t : 0;
  const fresh = await api(`history?since=${since}`);
  state.keep = fresh.keep;
  state.history.push(...fresh.points);
  if (state.history.length > state.keep) state.history.splice(0, state.history.length - state.keep);
  charts.rate ??= new LiveChart($('chart-rate'));
  charts.lag ??= new LiveChart($('chart-lag'));
  const { xs, rate, lag } = seriesOf(state.history);
  charts.rate.draw(xs, rate);
  charts.lag.draw(xs, lag);
}

// --- stream detail: entries and pending -----------------------------------------------------

async function loadDetail() {
  const name = state.selected;
  const stream = state.streams.find((s) => s.name === name);
  $('detail').hidden = false;
  $('detail-name').textContent = name;
  const before = state.entryCursors[state.entryCursors.length - 1];
  const entries = await api(`streams/${seg(name)}/entries?count=${PAGE}${before ? `&before=${before}` : ''}`);
  const groups = stream ? stream.groups : [];
  const pendingPages = await Promise.all(groups.map((g) => api(`streams/${seg(name)}/groups/${seg(g.name)}/pending?count=50`)));
  if (!changed('detail', [name, before, entries, groups.map((g) => [g.name, g.pending]), pendingPages, state.info?.xnack])) return;
  $('entries').tBodies[0].replaceChildren(
    ...entries.items.map((e) =>
      h('tr', { 'data-entry': e.id },
        h('td', { className: 'id' }, e.id),
        payloadCell(e),
        otherFields(e.fields),
        h('td', {}, h('button', { type: 'button', className: 'danger', onclick: () => act(`streams/${seg(name)}/entries/delete`, { ids: [e.id] }, `Delete entry ${e.id} from ${name}?`) }, 'Delete')))),
  );
  if (entries.items.length === 0) $('entries').tBodies[0].append(h('tr', {}, h('td', { colspan: 4, className: 'muted' }, 'no entries')));
  $('entries-older').disabled = entries.next === null;
  $('entries-older').onclick = () => {
    state.entryCursors.push(entries.next);
    loadDetail().catch(reportError);
  };
  $('entries-newest').disabled = state.entryCursors.length === 0;

  const xnack = state.info?.xnack === true;
  $('nack-note').textContent = xnack ? '' : 'NACK needs XNACK (Redis 8.8+ or sluice); this server lacks it';
  const blocks = groups.map((g, i) => {
    const base = `streams/${seg(name)}/groups/${seg(g.name)}/pending`;
    const page = pendingPages[i];
    const claim = (id) => act(`${base}/claim`, { ids: [id], consumer: $('claim-consumer').value });
    return h('div', { 'data-pending-group': g.name },
      h('h3', {}, `group ${g.name}`, h('small', {}, ` ${g.pending} pending`)),
      page.items.length === 0
        ? h('p', { className: 'muted' }, 'nothing pending')
        : h('table', {},
          h('thead', {}, h('tr', {}, h('th', {}, 'id'), h('th', {}, 'consumer'), h('th', { className: 'num' }, 'deliveries'), h('th', { className: 'num' }, 'idle'), h('th', {}, ''))),
          h('tbody', {}, ...page.items.map((p) =>
            h('tr', { 'data-pending': p.id },
              h('td', { className: 'id' }, p.id),
              h('td', {}, p.consumer === '' ? h('span', { className: 'muted' }, '(released)') : p.consumer),
              h('td', { className: 'num' }, p.deliveries),
              h('td', { className: 'num' }, duration(p.idleMs)),
              h('td', {},
                h('button', { type: 'button', onclick: () => claim(p.id) }, 'Claim'), ' ',
                h('button', { type: 'button', disabled: !xnack, onclick: () => act(`${base}/nack`, { ids: [p.id] }) }, 'NACK')))))));
  });
  $('pending').replaceChildren(...(blocks.length ? blocks : [h('p', { className: 'muted' }, 'no consumer groups')]));
}

function selectFromHash() {
  const m = /^#stream=(.*)$/.exec(location.hash);
  const name = m ? decodeURIComponent(m[1]) : null;
  if (name !== state.selected) state.entryCursors = [];
  state.selected = name;
  if (name === null) {
    $('detail').hidden = true;
    return;
  }
  loadDetail().then(() => $('detail').scrollIntoView({ block: 'start' }), reportError);
}

// --- jobs -------------------------------------------------------------------------------------

const jobs = createJobsView({ h, $, api, act, seg, time, reportError });

// --- refresh loop ---------------------------------------------------------------------------

async function refresh() {
  try {
    state.info ??= await api('info');
    state.streams = await api('streams');
    renderStreams();
    renderGroups();
    await renderDeadLetters();
    await refreshCharts();
    if (state.selected !== null) await loadDetail();
    await jobs.refresh();
    const backend = state.info.backend === 'embedded' ? 'embedded' : `server ${state.info.version ?? ''}`;
    $('backend').textContent = `${backend} · ${state.streams.length} streams`;
    $('status').textContent = `updated ${new Date().toLocaleTimeString()}`;
    document.body.dataset.loaded = 'true';
    clearError();
  } catch (err) {
    reportError(err);
  }
}

function start() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    state.token = decodeURIComponent(m[1]);
    sessionStorage.setItem(TOKEN_KEY, state.token);
    history.replaceState(null, '', location.pathname + location.search);
  }
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    state.token = $('token-input').value;
    sessionStorage.setItem(TOKEN_KEY, state.token);
    $('token-form').hidden = true;
    state.info = null;
    refresh().then(() => {
      selectFromHash();
      jobs.onHash();
    });
  });
  $('entries-newest').addEventListener('click', () => {
    state.entryCursors = [];
    loadDetail().catch(reportError);
  });
  $('detail-close').addEventListener('click', () => { location.hash = ''; });
  window.addEventListener('hashchange', () => {
    selectFromHash();
    jobs.onHash();
  });
  window.addEventListener('resize', () => { charts.rate?.resize(); charts.lag?.resize(); });
  refresh().then(() => {
    selectFromHash();
    jobs.onHash();
    const every = state.info?.sampleIntervalMs ?? 2000;
    state.timer = setInterval(refresh, every);
  });
}

start();

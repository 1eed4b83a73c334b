// One process in full: what the table shows plus its spec (fetched when opened), the latest
// events about it, and its log on demand (a `logs` command whose completion carries it).
import { api } from './auth.js';
import { clock, escapeHtml, STATE_LABELS } from './format.js';

const field = (name, value) =>
  value === undefined || value === '' ? '' : `<dt>${name}</dt><dd>${value}</dd>`;

function about(store, uuid) {
  return store.events
    .filter((e) => e.uuid === uuid || (e.uuids && e.uuids.includes(uuid)))
    .slice(-8)
    .reverse();
}

function specHtml(instance) {
  if (!instance) return '<p class="muted">loading the spec…</p>';
  const d = instance.description;
  const commands = d.executableAndArguments
    .map((c) => `${escapeHtml(c.exec)} ${c.args.map(escapeHtml).join(' ')}`)
    .join('<br>');
  const env = Object.entries(d.env)
    .map(([k, v]) => `${escapeHtml(k)}=${escapeHtml(v)}`)
    .join('<br>');
  return `<dl>${field('command', `<span class="mono">${commands}</span>`)}${field('env', `<span class="mono">${env || '—'}</span>`)}
${field('directory', escapeHtml(d.executionDirectory ?? ''))}${field('logs path', escapeHtml(d.logsPath ?? ''))}
${field('allowed hosts', escapeHtml((instance.restriction.allowedHosts || []).join(', ')))}${field('namespace', escapeHtml(instance.namespace))}
${field('pod uid', `<span class="mono">${escapeHtml(instance.podUid)}</span>`)}</dl>`;
}

export function renderDetails(root, store, uuid, extra) {
  const row = uuid && store.rows.get(uuid);
  root.hidden = !row;
  if (!row) return;
  const exit =
    row.exitCode === undefined
      ? ''
      : `<b class="${row.state === 'failed' ? 't-failed' : ''}">${escapeHtml(row.exitCode)}</b>`;
  const events = about(store, uuid)
    .map(
      (e) =>
        `<li><span class="mono muted">${clock(new Date(e.timeMs).toISOString())}</span> ${escapeHtml(e.text)}</li>`,
    )
    .join('');
  root.innerHTML = `<header><h2>${escapeHtml(row.name)}</h2><span class="t-${row.state}"><i class="swatch fill-${row.state}"></i> ${STATE_LABELS[row.state]}</span><button class="close" aria-label="close the details">×</button></header>
<dl>${field('uuid', `<span class="mono">${row.uuid}</span>`)}${field('tree id', escapeHtml(row.treeId ?? ''))}${field('role', escapeHtml(row.role))}
${field('exit code', exit)}${field('reason', escapeHtml(row.reason ?? ''))}${field('node', escapeHtml(row.node ?? ''))}${field('pod', `<span class="mono">${escapeHtml(row.pod)}</span>`)}
${field('booted', escapeHtml(row.bootedAt))}${field('ended', escapeHtml(row.terminatedAt ?? ''))}${field('user', escapeHtml(row.user))}
${field('restarts', escapeHtml(row.restarts ?? ''))}${field('exit policy', escapeHtml(row.automatic ?? ''))}</dl>
<h3>Spec</h3>${specHtml(extra.instance)}
<h3>Latest events about it</h3><ul class="events">${events || '<li class="muted">none seen since the page opened</li>'}</ul>
<h3>Log</h3><button class="fetch-logs">Fetch the last 100 lines</button><pre class="logs">${escapeHtml(extra.logs ?? '')}</pre>`;
}

/** The full instance (spec, namespace, pod uid) from the state API. */
export async function fetchInstance(uuid) {
  const answer = await (await api(`/v1/processes?uuid=${encodeURIComponent(uuid)}`)).json();
  return (answer.processes || [])[0];
}

/** Sends a `logs` command through the state service and waits for its completion. */
export async function fetchLogs(row, onProgress) {
  const sent = await api('/v1/dashboard/logs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ session: row.session, uuid: row.uuid, tailLines: 100 }),
  });
  if (!sent.ok) return `could not ask for the log: ${(await sent.json()).message}`;
  const { commandId } = await sent.json();
  onProgress(`asked (command ${commandId}), waiting for the boot-worker…`);
  for (let attempt = 0; attempt < 60; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answer = await api(`/v1/dashboard/commands/${encodeURIComponent(commandId)}`);
    if (!answer.ok) continue;
    const body = await answer.json();
    if (body.state !== 'completed') continue;
    const c = body.completion;
    if (c.status !== 'succeeded')
      return `${c.status}: ${(c.errors || []).map((e) => e.message).join('; ')}`;
    const logs = (c.logs || []).find((l) => l.uuid === row.uuid);
    return logs ? logs.lines.join('\n') || '(the log is empty)' : '(no log in the answer)';
  }
  return 'no answer within 30 s';
}

/**
 * The operator dashboard: one static page that reads the state API and follows `/v1/events`.
 * Kept in a module (not an asset file) so every build and `tsx` run serves the same page.
 */
export const DASHBOARD_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>kpm — process manager</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  :root { font: 14px/1.4 system-ui, sans-serif; color: #1d2430; background: #f5f6f8; }
  header { display: flex; gap: 1rem; align-items: baseline; padding: .8rem 1.2rem; background: #1d2430; color: #fff; }
  header h1 { font-size: 1.1rem; margin: 0; }
  #health { font-size: .85rem; opacity: .85; }
  main { display: grid; grid-template-columns: 16rem 1fr; gap: 1rem; padding: 1rem 1.2rem; }
  section { background: #fff; border-radius: 6px; padding: .6rem .8rem; box-shadow: 0 1px 2px #0001; }
  h2 { font-size: .95rem; margin: .2rem 0 .6rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #eceef2; white-space: nowrap; }
  th { font-weight: 600; color: #5a6474; font-size: .8rem; }
  tr.session { cursor: pointer; } tr.session.selected { background: #e8f0fe; }
  .RUNNING { color: #137333; font-weight: 600; } .DEAD { color: #a50e0e; font-weight: 600; }
  .mono { font-family: ui-monospace, monospace; font-size: .8rem; }
  #events { grid-column: 1 / -1; max-height: 22rem; overflow: auto; }
  #events li { list-style: none; padding: .2rem 0; border-bottom: 1px solid #eceef2; }
  #events ul { margin: 0; padding: 0; }
  .kind { display: inline-block; min-width: 6.5rem; font-size: .75rem; color: #5a6474; }
  input { font: inherit; padding: .15rem .4rem; }
</style>
</head>
<body>
<header><h1>kpm state</h1><span id="health">…</span></header>
<main>
  <section><h2>Sessions</h2><table><thead><tr><th>session</th><th>running</th><th>dead</th></tr></thead><tbody id="sessions"></tbody></table></section>
  <section><h2>Processes <input id="filter" placeholder="name regex"></h2>
    <table><thead><tr><th>session</th><th>name</th><th>role</th><th>status</th><th>exit</th><th>reason</th><th>node</th><th>uuid</th></tr></thead><tbody id="processes"></tbody></table></section>
  <section id="events"><h2>Live events</h2><ul id="log"></ul></section>
</main>
<script>
  let session = '';
  const $ = (id) => document.getElementById(id);
  const text = (v) => (v === undefined || v === null ? '' : String(v)).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  async function getJson(path) { const r = await fetch(path); return r.json(); }
  async function refresh() {
    const [health, sessions] = await Promise.all([getJson('/readyz'), getJson('/v1/sessions')]);
    $('health').textContent = (health.ready ? 'ready' : 'not ready') + ' · ' + Object.entries(health.parts).map(([k, v]) => k + ': ' + (v.detail || (v.ready ? 'ok' : 'waiting'))).join(' · ');
    $('sessions').innerHTML = sessions.sessions.map((s) => '<tr class="session' + (s.session === session ? ' selected' : '') + '" data-session="' + text(s.session) + '"><td>' + text(s.session) + '</td><td>' + s.running + '</td><td>' + s.dead + '</td></tr>').join('');
    const params = new URLSearchParams();
    if (session) params.set('session', session);
    if ($('filter').value) params.set('name', $('filter').value);
    const answer = await getJson('/v1/processes?' + params);
    const rows = answer.processes || [];
    $('processes').innerHTML = rows.map((p) => '<tr><td>' + text(p.description.metadata.session) + '</td><td>' + text(p.description.metadata.name) + '</td><td>' + text(p.role) + '</td><td class="' + p.statusCode + '">' + p.statusCode + '</td><td>' + text(p.returnCode) + '</td><td>' + text(p.reason) + '</td><td>' + text(p.nodeName) + '</td><td class="mono">' + text(p.uuid) + '</td></tr>').join('') || '<tr><td colspan="8">' + text(answer.message || 'no processes') + '</td></tr>';
  }
  let pending;
  const soon = () => { clearTimeout(pending); pending = setTimeout(refresh, 250); };
  $('sessions').addEventListener('click', (e) => { const row = e.target.closest('tr'); if (!row) return; session = session === row.dataset.session ? '' : row.dataset.session; refresh(); });
  $('filter').addEventListener('input', soon);
  function show(kind, event) {
    const d = event.data || {};
    const line = kind === 'completion' ? (d.commandType + ' ' + d.commandId + ' ' + d.status + ' (' + (d.processes || []).length + ' processes, ' + d.durationMs + ' ms)')
      : kind === 'termination' ? (d.name + ' exited ' + d.exitCode + ' (' + d.reason + ')')
      : (d.broadcastType + ': ' + d.text);
    const li = document.createElement('li');
    li.innerHTML = '<span class="kind">' + kind + '</span> <span class="mono">' + text(event.time) + '</span> [' + text(event.subject) + '] ' + text(line);
    $('log').prepend(li);
    while ($('log').children.length > 200) $('log').lastChild.remove();
    soon();
  }
  const stream = new EventSource('/v1/events');
  for (const kind of ['completion', 'termination', 'broadcast']) stream.addEventListener(kind, (e) => show(kind, JSON.parse(e.data)));
  refresh();
  setInterval(refresh, 5000);
</script>
</body>
</html>
`;

// The page's model: every process row, each session's counts and exit codes, the commands under
// way and the recent events, kept up to date change by change from the feed (never refetched
// whole while the stream lasts). Views read it; `changes` tells them what to redraw.
import { stateOf, treeKey, verb } from './format.js';

const TIMELINE_LIMIT = 2000;

function emptySession(session) {
  return {
    session,
    owner: '',
    counts: { running: 0, exited: 0, failed: 0 },
    exitCodes: new Map(),
    rows: new Map(),
    lastChangeMs: 0,
  };
}

export class Store {
  constructor() {
    this.rows = new Map();
    this.sessions = new Map();
    this.commands = new Map();
    this.events = [];
    this.resetChanges();
  }

  /** Called once the views have drawn what changed. */
  resetChanges() {
    this.changes = { sessions: false, structure: new Set(), tiles: new Set(), events: false };
  }

  /** Replaces everything with a snapshot from `/v1/dashboard/snapshot`. */
  load(snapshot) {
    this.rows.clear();
    this.sessions.clear();
    this.commands.clear();
    this.events = [];
    for (const row of snapshot.rows) this.upsert(row);
    for (const command of snapshot.commands) this.openCommand(command);
    for (const entry of snapshot.recent) this.apply(entry.kind, entry.data);
    this.changes.structure = new Set(this.sessions.keys());
    this.changes.events = true;
  }

  session(name) {
    let entry = this.sessions.get(name);
    if (!entry) {
      entry = emptySession(name);
      this.sessions.set(name, entry);
      this.changes.sessions = true;
    }
    return entry;
  }

  /** One change from the stream, by SSE event name. */
  apply(kind, data) {
    if (kind === 'row') this.upsert(data);
    else if (kind === 'gone') this.remove(data.uuid);
    else if (kind === 'command') this.openCommand(data);
    else if (kind === 'completion') this.complete(data);
    else if (kind === 'termination' || kind === 'broadcast') this.remember(kind, data);
  }

  upsert(row) {
    const before = this.rows.get(row.uuid);
    if (before) this.uncount(before);
    row.state = stateOf(row);
    row.treeKey = treeKey(row.treeId);
    this.rows.set(row.uuid, row);
    const session = this.session(row.session);
    session.rows.set(row.uuid, row);
    session.owner = row.user;
    session.counts[row.state]++;
    if (row.state !== 'running') {
      const code = row.exitCode === undefined ? '?' : String(row.exitCode);
      session.exitCodes.set(code, (session.exitCodes.get(code) || 0) + 1);
    }
    this.touch(session, Date.parse(row.terminatedAt || row.bootedAt));
    if (!before || before.treeId !== row.treeId || before.name !== row.name)
      this.changes.structure.add(row.session);
    else this.changes.tiles.add(row.uuid);
  }

  remove(uuid) {
    const row = this.rows.get(uuid);
    if (!row) return;
    this.uncount(row);
    this.rows.delete(uuid);
    const session = this.sessions.get(row.session);
    session.rows.delete(uuid);
    this.changes.structure.add(row.session);
    if (
      session.rows.size === 0 &&
      ![...this.commands.values()].some((c) => c.session === row.session)
    )
      this.sessions.delete(row.session);
  }

  uncount(row) {
    const session = this.sessions.get(row.session);
    session.counts[row.state]--;
    if (row.state !== 'running') {
      const code = row.exitCode === undefined ? '?' : String(row.exitCode);
      const left = (session.exitCodes.get(code) || 1) - 1;
      if (left === 0) session.exitCodes.delete(code);
      else session.exitCodes.set(code, left);
    }
    this.changes.sessions = true;
  }

  touch(session, timeMs) {
    if (timeMs > session.lastChangeMs) session.lastChangeMs = timeMs;
    this.changes.sessions = true;
  }

  openCommand(command) {
    if (this.commands.has(command.commandId)) return;
    this.commands.set(command.commandId, { ...command, pending: undefined, total: undefined });
    this.touch(this.session(command.session), Date.parse(command.startedAt));
  }

  /** What `/v1/commands/:id` said the command still waits for. */
  progress(commandId, pending) {
    const command = this.commands.get(commandId);
    if (!command) return;
    command.pending = pending.length;
    command.total = Math.max(command.total || 0, pending.length);
    this.changes.sessions = true;
  }

  complete(event) {
    const c = event.data;
    this.commands.delete(c.commandId);
    this.remember('completion', event);
  }

  remember(kind, event) {
    const item = describe(kind, event);
    this.events.push(item);
    if (this.events.length > TIMELINE_LIMIT)
      this.events.splice(0, this.events.length - TIMELINE_LIMIT);
    this.touch(this.session(item.session), item.timeMs);
    this.changes.events = true;
  }

  /** Processes a session's open boots still wait for. */
  pendingOf(session) {
    let pending = 0;
    for (const command of this.commands.values())
      if (command.session === session && verb(command.commandType) === 'boot')
        pending += command.pending || 0;
    return pending;
  }

  commandsOf(session) {
    return [...this.commands.values()].filter((c) => c.session === session);
  }
}

/** A timeline item: when, which session, what it says, and which process it is about. */
function describe(kind, event) {
  const d = event.data || {};
  const base = {
    id: event.id,
    kind,
    session: event.subject || d.session || '',
    timeMs: Date.parse(event.time) || Date.now(),
  };
  if (kind === 'termination')
    return {
      ...base,
      uuid: d.uuid,
      failed: d.exitCode !== 0,
      text: `${d.name} exited ${d.exitCode}${d.reason ? ` (${d.reason})` : ''}`,
    };
  if (kind === 'completion')
    return {
      ...base,
      session: d.session || base.session,
      failed: d.status !== 'succeeded',
      uuids: (d.processes || []).map((p) => p.uuid),
      text: `${verb(d.commandType)} ${d.commandId} ${d.status} · ${(d.processes || []).length} processes · ${d.durationMs} ms`,
    };
  const inner = d.data || {};
  return {
    ...base,
    broadcastType: d.broadcastType,
    uuid: inner.uuid,
    failed: d.broadcastType === 'COMMAND_EXECUTION_FAILED',
    text: d.text,
  };
}

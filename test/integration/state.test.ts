import { eventually } from '@kpm/common';
import {
  BroadcastEventType,
  CommandType,
  completionEventId,
  topicName,
  type CommandCompleted,
} from '@kpm/contracts';
import type { ServiceProcess } from '../support/service-process';
import { isCompletion, StateBench, stateProcess } from '../support/state-bench';
import {
  bootAccepted,
  commandRejected,
  killAccepted,
  processBooted,
  queryCommand,
  terminated,
  testProcesses,
} from '../support/state-facts';
import { uniqueTopicPrefix } from '../support/stack-env';
import type { ProbedRecord, TopicProbe } from '../support/topic-probe';

/**
 * The state service on the real broker, fed facts directly (no boot-worker or watcher needed):
 * completions, exactly once across a SIGKILL, timeouts that survive a restart, the HTTP API.
 */
describe('state service', () => {
  const prefix = uniqueTopicPrefix('state');
  const session = 'run-7';
  const other = 'run-8';
  let state: ServiceProcess;
  let bench: StateBench;
  let probe: TopicProbe;

  const send: StateBench['send'] = (topic, ...events) => bench.send(topic, ...events);
  const completion = isCompletion;
  const completionsOf = (commandId: string) =>
    probe.records
      .filter(completion(commandId))
      .map((r) => r.event!.data as unknown as CommandCompleted);
  const broadcast =
    (type: string, pred: (data: Record<string, unknown>) => boolean) => (r: ProbedRecord) =>
      r.event?.type === BroadcastEventType.broadcast &&
      (r.event.data as { broadcastType: string }).broadcastType === type &&
      pred(r.event.data);
  const statusUpdate = (podUid: string) =>
    broadcast(
      'SUBPROCESS_STATUS_UPDATE',
      (d) => (d.data as { podUid?: string } | undefined)?.podUid === podUid,
    );
  const api = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${state.url}${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };

  beforeAll(async () => {
    // A SIGKILLed member holds its partitions until its session times out: keep that short.
    state = stateProcess(prefix, 'state-test', {
      KPM_STATE_SESSION_TIMEOUT_MS: '6000',
      KPM_OPERATOR_USERS: 'shifter',
    });
    await state.start();
    bench = await new StateBench(prefix, ['completions', 'broadcast', 'processes']).start();
    probe = bench.probe;
  }, 180_000);

  afterAll(async () => {
    await bench?.stop();
    await state?.kill('SIGTERM');
  }, 60_000);

  const five = testProcesses(session, 5);
  const exitCodes = [143, 0, 137, 1, 143];

  it('completes a boot of 5 as succeeded with 5 RUNNING processes', async () => {
    await send(
      'process-events',
      bootAccepted('boot-5', session, five),
      ...five.map((p) => processBooted('boot-5', p)),
    );
    const done = (await probe.waitFor(completion('boot-5'))).event!
      .data as unknown as CommandCompleted;
    expect(done).toMatchObject({ commandType: CommandType.boot, session, status: 'succeeded' });
    expect(done.processes.map((p) => [p.uuid, p.statusCode])).toEqual(
      five.map((p) => [p.uuid, 'RUNNING']),
    );
    await probe.waitFor(
      broadcast(
        'COMMAND_EXECUTION_SUCCESS',
        (d) => (d.data as { commandId: string }).commandId === 'boot-5',
      ),
    );
  });

  it('completes a kill exactly once although the state service is SIGKILLed before the last termination', async () => {
    // Terminations before and after the kill.accepted, in mixed order, with a duplicate.
    await send(
      'terminations',
      terminated(five[2], exitCodes[2]),
      terminated(five[0], exitCodes[0]),
    );
    await send('process-events', killAccepted('kill-5', session, five));
    await send(
      'terminations',
      terminated(five[4], exitCodes[4]),
      terminated(five[1], exitCodes[1]),
      terminated(five[1], exitCodes[1]),
    );
    for (const i of [0, 1, 2, 4]) await probe.waitFor(statusUpdate(five[i].podUid));
    await probe.waitFor(
      broadcast(
        'COMMAND_EXECUTION_START',
        (d) => (d.data as { commandId: string }).commandId === 'kill-5',
      ),
    );
    expect(completionsOf('kill-5')).toHaveLength(0);

    await state.kill('SIGKILL');
    await send(
      'terminations',
      terminated(five[3], exitCodes[3]),
      terminated(five[0], exitCodes[0]),
    );
    await state.start();

    const done = (await probe.waitFor(completion('kill-5'))).event!
      .data as unknown as CommandCompleted;
    expect(done.status).toBe('succeeded');
    const byUuid = new Map(done.processes.map((p) => [p.uuid, p]));
    five.forEach((p, i) =>
      expect(byUuid.get(p.uuid)).toMatchObject({
        statusCode: 'DEAD',
        returnCode: exitCodes[i],
        podUid: p.podUid,
      }),
    );

    // A later termination on the same partition proves everything before it has been processed.
    const [marker] = testProcesses(session, 1, 'marker');
    await send('terminations', terminated(marker, 0));
    await probe.waitFor(statusUpdate(marker.podUid));
    expect(completionsOf('kill-5')).toHaveLength(1);
    expect(completionsOf('boot-5')).toHaveLength(1);
    const updates = probe.records.filter((r) => five.some((p) => statusUpdate(p.podUid)(r)));
    expect(updates.map((r) => r.event!.id).sort()).toEqual(
      [...new Set(updates.map((r) => r.event!.id))].sort(),
    );
    expect(updates).toHaveLength(5);
    const text = (updates.find(statusUpdate(five[3].podUid))!.event!.data as { text: string }).text;
    expect(text).toBe(
      `Pod 'ru-04' (session: '${session}', user: 'daq', uuid: ${five[3].uuid}) terminated with exit code 1. Reason: Error`,
    );
  }, 180_000);

  it('times out a kill with the pending uuids, once, also when the deadline passes while state is down', async () => {
    const pair = testProcesses(other, 2, 'dcm');
    await send(
      'process-events',
      bootAccepted('boot-2', other, pair),
      ...pair.map((p) => processBooted('boot-2', p)),
    );
    await probe.waitFor(completion('boot-2'));
    const sent = Date.now();
    await send('process-events', killAccepted('kill-2', other, pair, 3));
    await send('terminations', terminated(pair[0], 143));
    await probe.waitFor(statusUpdate(pair[0].podUid));
    await state.kill('SIGKILL');
    // The deadline passes with the service down.
    await eventually(() => Date.now() >= sent + 3_500, { what: "the kill's deadline" });
    await state.start();
    const done = (await probe.waitFor(completion('kill-2'))).event!
      .data as unknown as CommandCompleted;
    expect(done.status).toBe('timed_out');
    expect(done.pending).toEqual([pair[1].uuid]);
    expect(done.durationMs).toBeGreaterThanOrEqual(3_000);
    expect(done.processes.find((p) => p.uuid === pair[0].uuid)).toMatchObject({
      statusCode: 'DEAD',
      returnCode: 143,
    });
    const [marker] = testProcesses(other, 1, 'marker');
    await send('terminations', terminated(marker, 0));
    await probe.waitFor(statusUpdate(marker.podUid));
    expect(completionsOf('kill-2')).toHaveLength(1);
  }, 180_000);

  it('answers ps and flush commands, turns command.rejected into a rejected completion', async () => {
    await send('commands', queryCommand(CommandType.ps, 'ps-1', session));
    const ps = (await probe.waitFor(completion('ps-1'))).event!.data as unknown as CommandCompleted;
    expect(ps.status).toBe('succeeded');
    expect(ps.processes.filter((p) => p.statusCode === 'DEAD')).toHaveLength(6);
    await probe.waitFor(
      broadcast('COMMAND_RECEIVED', (d) => (d.data as { commandId: string }).commandId === 'ps-1'),
    );

    await send('process-events', commandRejected('bad-1', session));
    expect((await probe.waitFor(completion('bad-1'))).event!.data).toMatchObject({
      status: 'rejected',
      errors: [{ path: 'processes[0].name', message: 'must be a DNS-1123 label' }],
    });

    // Another user's flush is refused naming the owner; an operator's goes through.
    await send('commands', queryCommand(CommandType.flush, 'flush-mallory', other, 'mallory'));
    expect((await probe.waitFor(completion('flush-mallory'))).event!.data).toMatchObject({
      status: 'rejected',
      processes: [],
      errors: [
        { path: 'query', message: `session "${other}" belongs to user "daq", not "mallory"` },
      ],
    });
    await send('commands', queryCommand(CommandType.flush, 'flush-1', other, 'shifter'));
    const flush = (await probe.waitFor(completion('flush-1'))).event!
      .data as unknown as CommandCompleted;
    expect(flush.processes.map((p) => p.description.metadata.name).sort()).toEqual([
      'dcm-01',
      'marker-01',
    ]);
    await probe.waitFor((r) => r.topic === topicName('processes', prefix) && r.value === null);
  });

  it('serves the same table over HTTP after a restart, with sessions, commands and metrics', async () => {
    await state.kill('SIGKILL');
    await state.start();
    const processes = await api<{
      processes: Array<{ uuid: string; statusCode: string; returnCode?: number }>;
    }>(`/v1/processes?session=${session}`);
    expect(processes.status).toBe(200);
    const rows = new Map(processes.body.processes.map((p) => [p.uuid, p]));
    five.forEach((p, i) =>
      expect(rows.get(p.uuid)).toMatchObject({ statusCode: 'DEAD', returnCode: exitCodes[i] }),
    );
    const running = await api<{ processes: unknown[] }>(
      `/v1/processes?session=${other}&status=RUNNING`,
    );
    expect(running.body.processes).toHaveLength(1); // dcm-02 never ended; dcm-01 and the marker were flushed
    const named = await api<{ processes: Array<{ uuid: string }> }>(
      `/v1/processes?name=${encodeURIComponent('^ru-0[45]$')}`,
    );
    expect(named.body.processes.map((p) => p.uuid).sort()).toEqual(
      [five[3].uuid, five[4].uuid].sort(),
    );
    const sessions = await api<{ sessions: unknown[] }>('/v1/sessions');
    expect(sessions.body.sessions).toEqual([
      { session, running: 0, dead: 6 },
      { session: other, running: 1, dead: 0 },
    ]);
    const kill = await api<{ state: string; completion: CommandCompleted }>('/v1/commands/kill-5');
    expect(kill.body).toMatchObject({ state: 'completed', completion: { status: 'succeeded' } });
    expect((await api('/v1/commands/no-such-command')).status).toBe(404);
    const metrics = await (await fetch(`${state.url}/metrics`)).text();
    expect(metrics).toMatch(/kpm_state_owned_partitions\{service="state"\} 6/);
    const ready = await api<{ ready: boolean; parts: Record<string, { detail?: string }> }>(
      '/readyz',
    );
    expect(ready.body.ready).toBe(true);
    expect(ready.body.parts['kafka-consumer'].detail).toBe('owns partitions [0, 1, 2, 3, 4, 5]');
    const dashboard = await fetch(`${state.url}/`);
    expect(dashboard.headers.get('content-type')).toMatch(/text\/html/);
    expect(await dashboard.text()).toContain('<script type="module" src="/dashboard/app.js">');
    const feed = await fetch(`${state.url}/dashboard/feed.js`);
    expect(feed.headers.get('content-type')).toMatch(/text\/javascript/);
    // The page reads its stream with fetch (it may carry a bearer token), resuming by cursor.
    expect(await feed.text()).toContain('`/v1/dashboard/stream?after=${encodeURIComponent(');
  }, 180_000);

  it('shows an open command with its pending uuids', async () => {
    const trio = testProcesses(session, 3, 'tp');
    await send(
      'process-events',
      bootAccepted('boot-3', session, trio),
      processBooted('boot-3', trio[0]),
    );
    await probe.waitFor(
      (r) => r.topic === topicName('processes', prefix) && r.key === trio[0].uuid,
    );
    const open = await api<{ state: string; pending: string[] }>('/v1/commands/boot-3');
    expect(open.body).toMatchObject({ state: 'open', pending: [trio[1].uuid, trio[2].uuid] });
  });

  it.each([
    ['status=ZOMBIE', 'status'],
    ['uuid=not-a-uuid', 'uuid'],
    ['session=Not_A_Label', 'session'],
    [`name=${encodeURIComponent('(?=a)')}`, 'name'],
    [`name=${encodeURIComponent('([')}`, 'name'],
    ['colour=blue', 'colour'],
  ])('answers /v1/processes?%s with a 400 naming %s', async (query, parameter) => {
    const answer = await api<{ errors: Array<{ path: string; message: string }> }>(
      `/v1/processes?${query}`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors.map((e) => e.path)).toEqual([parameter]);
  });

  it('streams completions of one session over SSE', async () => {
    const abort = new AbortController();
    const response = await fetch(`${state.url}/v1/events?session=${session}`, {
      signal: abort.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const seen = (async () => {
      while (!text.includes('event: completion') || !text.includes(completionEventId('ps-2'))) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    })();
    await send(
      'commands',
      queryCommand(CommandType.ps, 'ps-other', other),
      queryCommand(CommandType.ps, 'ps-2', session),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      seen,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`SSE saw only:\n${text}`)), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
    abort.abort();
    expect(text).toContain(`id: ${completionEventId('ps-2')}`);
    expect(text).not.toContain(completionEventId('ps-other'));
  });
});

import { randomUUID } from 'node:crypto';
import { buildEvent, eventId, ProcessEventType, type KpmEvent, type Role } from '@kpm/contracts';
import { instanceOf, type TestProcess } from './state-facts';

/**
 * A big session as the boot-worker would report it: a root controller, `segments` segment
 * controllers and their applications, with tree ids, for the dashboard's 5,000-process check.
 */
export interface TreeProcess extends TestProcess {
  treeId: string;
  /** drunc's role: the controllers run drunc-controller, the applications daq_application. */
  role: Role;
}

export function treeSession(
  session: string,
  segments: number,
  appsPerSegment: number,
): TreeProcess[] {
  const at = (name: string, treeId: string, role: Role): TreeProcess => ({
    uuid: randomUUID(),
    podUid: randomUUID(),
    session,
    name,
    treeId,
    role,
  });
  const out = [at('root-controller', '0', 'root-controller')];
  for (let s = 1; s <= segments; s++) {
    out.push(at(`segment-${s}`, `0.${s}`, 'segment-controller'));
    for (let a = 1; a <= appsPerSegment; a++)
      out.push(at(`app-${s}-${a}`, `0.${s}.${a}`, 'application'));
  }
  return out;
}

const source = '/kpm/test/dashboard';

export function treeBootAccepted(
  commandId: string,
  session: string,
  processes: TreeProcess[],
): KpmEvent {
  return buildEvent({
    id: eventId('test', 'boot.accepted', commandId),
    type: ProcessEventType.bootAccepted,
    source,
    subject: session,
    data: {
      commandId,
      session,
      user: 'daq',
      processes: processes.map((p) => ({
        uuid: p.uuid,
        name: p.name,
        treeId: p.treeId,
        role: p.role,
      })),
    },
  });
}

export function treeProcessBooted(commandId: string, p: TreeProcess): KpmEvent {
  const instance = instanceOf(p);
  instance.description.metadata.treeId = p.treeId;
  instance.role = p.role;
  instance.nodeName = `kpm-node-${(p.treeId.length % 3) + 1}`;
  return buildEvent({
    id: eventId('test', 'process.booted', commandId, p.podUid),
    type: ProcessEventType.processBooted,
    source,
    subject: p.session,
    data: { commandId, process: instance },
  });
}

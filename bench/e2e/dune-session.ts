/**
 * A DUNE-shaped session for the native bench, as drunc boots a far-detector module from its
 * configuration: the local connection server (infrastructure, tree id 1), the root controller
 * (0), four segment controllers (readout, dataflow, trigger, HSI: 0.1–0.4), the trigger's two
 * applications and the HSI's, then the readout applications (three quarters of a large session:
 * 150 of 200, as DUNE's module; 2 in a test session of 17) and the dataflow applications for the
 * rest. Readout applications go two to a host, as DUNE's readout servers host them; the others
 * spread over the hosts from the other end. Its terminate runs in drunc's stage order.
 */
import {
  connectionServer,
  daqApplication,
  druncController,
} from '../../test/support/daq-application';

/** The session's fixed part: infrastructure, controllers, trigger and HSI. */
const CORE = 9;
/** The connection server's node port (drunc's default port of the local connection server). */
const CONNECTION_SERVER_PORT = 30005;

export interface DuneProcess {
  name: string;
  treeId: string;
  executableAndArguments: { exec: string; args: string[] }[];
  restriction: { allowedHosts: string[] };
}

/** How many of a session of `n` are readout applications. */
export function readoutCount(n: number): number {
  return n <= 20 ? 2 : Math.round(n * 0.75);
}

/** `n` processes (at least 12) over `hosts`, in drunc's boot order. */
export function duneProcesses(n: number, hosts: readonly string[]): DuneProcess[] {
  if (n < CORE + 3)
    throw new Error(`a DUNE-shaped session has at least ${CORE + 3} processes, not ${n}`);
  if (hosts.length === 0) throw new Error('a DUNE-shaped session needs at least one host');
  const readouts = readoutCount(n);
  const dataflows = n - CORE - readouts;
  let spread = 0;
  const elsewhere = () => hosts[hosts.length - 1 - (spread++ % hosts.length)];
  const on = (spec: Omit<DuneProcess, 'restriction'>, host: string): DuneProcess => ({
    ...spec,
    restriction: { allowedHosts: [host] },
  });
  const processes: DuneProcess[] = [
    on(connectionServer(CONNECTION_SERVER_PORT), hosts[0]),
    on(druncController('root-controller', '0'), hosts[0]),
    on(druncController('ru-controller', '0.1'), hosts[0]),
    on(druncController('df-controller', '0.2'), hosts[0]),
    on(druncController('trg-controller', '0.3'), hosts[0]),
    on(druncController('hsi-controller', '0.4'), hosts[0]),
    on(daqApplication('tc-maker', '0.3.1'), elsewhere()),
    on(daqApplication('mlt', '0.3.2'), elsewhere()),
    on(daqApplication('hsi', '0.4.1'), elsewhere()),
  ];
  for (let i = 0; i < readouts; i += 1) {
    const name = `ru-${String(i + 1).padStart(3, '0')}`;
    processes.push(
      on(daqApplication(name, `0.1.${i + 1}`), hosts[Math.floor(i / 2) % hosts.length]),
    );
  }
  for (let i = 0; i < dataflows; i += 1) {
    const name = `df-${String(i + 1).padStart(3, '0')}`;
    processes.push(on(daqApplication(name, `0.2.${i + 1}`), elsewhere()));
  }
  return processes;
}

/** The readout application in the middle of the session: the one a restart profile restarts. */
export function midSessionReadout(n: number): string {
  return `ru-${String(Math.ceil(readoutCount(n) / 2)).padStart(3, '0')}`;
}

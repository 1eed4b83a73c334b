/** A plain DAQ application process for a boot command: `daq_application --name <name>`. */
export const daqApplication = (name: string, treeId: string) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
});

/** A drunc controller for a boot command: `drunc-controller --name <name>` (tree id 0 or 0.N). */
export const druncController = (name: string, treeId: string) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'drunc-controller', args: ['--name', name] }],
});

/**
 * drunc's local connection server for a boot command: gunicorn bound to `port` (an infrastructure
 * application, tree id 1); drunc exposes it as the same node port.
 */
export const connectionServer = (port: number, name = 'local-connection-server') => ({
  name,
  treeId: '1',
  executableAndArguments: [
    {
      exec: 'gunicorn',
      args: ['-b', `0.0.0.0:${port}`, 'connection-service.connection-flask:app'],
    },
  ],
});

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

/** A plain DAQ application process for a boot command: `daq_application --name <name>`. */
export const daqApplication = (name: string, treeId: string) => ({
  name,
  treeId,
  executableAndArguments: [{ exec: 'daq_application', args: ['--name', name] }],
});

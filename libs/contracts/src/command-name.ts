/** A command type's short name for texts, settings keys and the CLI: `daq.kpm.command.kill.v1` → `kill`. */
export function commandName(commandType: string): string {
  return /^daq\.kpm\.command\.([a-z-]+)\.v\d+$/.exec(commandType)?.[1] ?? commandType;
}

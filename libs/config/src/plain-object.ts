/** A mapping of settings (a YAML mapping or a section of one), as opposed to a list or a value. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

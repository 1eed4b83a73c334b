/** What an error says, for a log line or a message: an Error's message, else the value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

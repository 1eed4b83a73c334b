/**
 * Bounded, sanitised copies of text a sender chose (envelope attributes, values quoted in error
 * messages). Whatever kpm echoes back — in a rejection, a broadcast, a log line or a metric
 * label — is built from these copies, so no input can make an output record outgrow its topic's
 * limit or put control characters into a terminal or a dashboard.
 */

/** Limits of the envelope attributes kpm reads (docs/design.md §3.1). */
export const ENVELOPE_LIMITS = {
  id: 256,
  type: 256,
  source: 1024,
  subject: 256,
} as const;

/** At most this many field errors are listed per rejection; the rest are counted. */
export const MAX_FIELD_ERRORS = 100;
export const MAX_ERROR_PATH_LENGTH = 256;
export const MAX_ERROR_MESSAGE_LENGTH = 1024;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` with control characters replaced by `?` and, if longer than `max` characters, cut with
 * a note of how much was left out (the note fits inside `max`).
 */
export function boundedText(text: string, max: number): string {
  const clean = (text.length > max ? text.slice(0, max) : text).replace(CONTROL, '?');
  if (text.length <= max) return clean;
  const note = `…(${text.length} characters)`;
  return clean.slice(0, Math.max(0, max - note.length)) + note;
}

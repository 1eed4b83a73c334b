/**
 * The static bearer tokens of `http.auth.tokenFile`: one `<token> <user>` a line, `#` comments
 * and blank lines skipped. Tokens are kept by their SHA-256 only, so a lookup's timing says
 * nothing about the tokens, and a bad line is named by its number, never by its content.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { USER_NAME, USER_NAME_MESSAGE } from '@kpm/contracts/validation/rules';

/** Shorter tokens are guessable; 16 characters of a random token are 96 bits at least. */
const MIN_TOKEN_LENGTH = 16;

class TokenFileError extends Error {
  constructor(file: string, problem: string) {
    super(`http.auth.tokenFile (${file}): ${problem}`);
    this.name = 'TokenFileError';
  }
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The users by token digest; throws naming the file and line of a bad line. */
export function parseTokenFile(file: string, text: string): Map<string, string> {
  const users = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    const problem = lineProblem(fields);
    if (problem) throw new TokenFileError(file, `line ${index + 1}: ${problem}`);
    const digest = tokenDigest(fields[0]);
    if (users.has(digest))
      throw new TokenFileError(file, `line ${index + 1}: the token of an earlier line again`);
    users.set(digest, fields[1]);
  });
  if (users.size === 0) throw new TokenFileError(file, 'holds no token');
  return users;
}

function lineProblem(fields: string[]): string | undefined {
  if (fields.length !== 2) return 'must be "<token> <user>"';
  if (fields[0].length < MIN_TOKEN_LENGTH)
    return `the token must be at least ${MIN_TOKEN_LENGTH} characters`;
  if (!USER_NAME.test(fields[1])) return `the user ${USER_NAME_MESSAGE}`;
  return undefined;
}

export function readTokenFile(file: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TokenFileError(file, (error as Error).message);
  }
  return parseTokenFile(file, text);
}

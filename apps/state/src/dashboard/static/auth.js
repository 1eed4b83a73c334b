// With the state service's http.auth on, every API request carries `Authorization: Bearer`.
// The token comes from the link (`/#token=…`, taken out of the address at once so it is neither
// bookmarked nor shared with the view) or is asked for when the service answers 401. It is kept
// in this browser's localStorage, which only this page's own scripts can read (the service's
// Content-Security-Policy lets no other script run). With http.auth off no token is needed.
const KEY = 'kpm.token';
let declined = false;

export function takeTokenFromLink() {
  const match = /^#token=(.+)$/.exec(location.hash);
  if (!match) return;
  localStorage.setItem(KEY, decodeURIComponent(match[1]));
  history.replaceState(history.state, '', location.pathname + location.search);
}

function withToken(init, token) {
  if (!token) return init;
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/** `fetch` for the state API: with the token, asking for one when the service refuses. */
export async function api(path, init = {}) {
  const sent = localStorage.getItem(KEY);
  const answer = await fetch(path, withToken(init, sent));
  if (answer.status !== 401) return answer;
  // Another request may have been given a new token meanwhile.
  const token =
    localStorage.getItem(KEY) !== sent ? localStorage.getItem(KEY) : askForToken(answer);
  return token ? fetch(path, withToken(init, token)) : answer;
}

/** The token people paste when the service refuses; after a cancel, no more questions. */
function askForToken(answer) {
  if (declined) return undefined;
  const why = /error_description="([^"]*)"/.exec(answer.headers.get('WWW-Authenticate') ?? '');
  const token = prompt(
    `The state service asks for a token${why ? ` (${why[1]})` : ''}. Paste your kpm token:`,
  )?.trim();
  if (!token) declined = true;
  else localStorage.setItem(KEY, token);
  return token;
}

/** Why the service refused a request, in words for the status line. */
export async function refusal(answer) {
  const body = await answer.json().catch(() => ({}));
  return `${answer.status}${body.message ? `: ${body.message}` : ''}`;
}

// The exit codes of a session's ended processes, one bar per code.
import { escapeHtml } from './format.js';

export function renderHistogram(root, session) {
  const codes = session ? [...session.exitCodes.entries()] : [];
  if (codes.length === 0) {
    root.innerHTML = '<p class="muted">No process has ended yet.</p>';
    return;
  }
  codes.sort((a, b) => (a[0] === '?' ? 1 : b[0] === '?' ? -1 : Number(a[0]) - Number(b[0])));
  const max = Math.max(...codes.map(([, n]) => n));
  const width = 44;
  const height = 90;
  const bars = codes
    .map(([code, n], i) => {
      const h = Math.max(2, Math.round((n / max) * (height - 30)));
      const x = i * width + 6;
      const kind = code === '0' ? 'exited' : 'failed';
      return `<g class="hbar" data-code="${escapeHtml(code)}" data-n="${n}"><rect class="fill-${kind}" x="${x}" y="${height - 16 - h}" width="${width - 12}" height="${h}"></rect>
        <text x="${x + (width - 12) / 2}" y="${height - 20 - h}" text-anchor="middle">${n}</text>
        <text x="${x + (width - 12) / 2}" y="${height - 3}" text-anchor="middle" class="axis">${escapeHtml(code)}</text><title>exit code ${escapeHtml(code)}: ${n} process${n === 1 ? '' : 'es'}</title></g>`;
    })
    .join('');
  root.innerHTML = `<svg class="histogram" role="img" aria-label="exit codes: ${codes.map(([c, n]) => `${escapeHtml(c)} × ${n}`).join(', ')}" width="${codes.length * width + 12}" height="${height}">${bars}</svg>`;
}

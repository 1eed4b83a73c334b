/**
 * `docs/settings.md`, generated from the settings catalog (settings-catalog.ts) and the doc
 * comments of the settings classes: every setting with its default and unit, its variable, the
 * names it is also read by (an earlier variable, an old YAML name, drunc's name) and what it does.
 * `npm run generate` writes it; a test regenerates it and fails when the committed file differs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import {
  DRUNC_CONFIGURATION_WITHOUT_EFFECT,
  DRUNC_SETTINGS_WITHOUT_EFFECT,
} from './drunc-settings';
import { settingsCatalog, type Setting } from './settings-catalog';

export const SETTINGS_REFERENCE_FILE = 'docs/settings.md';

const SOURCES = 'libs/config/src';

/** The sections of the reference: which settings, read by whom. */
const SECTIONS: ReadonlyArray<{ title: string; readBy: string; paths: RegExp }> = [
  { title: 'Every service', readBy: 'all', paths: /^(instance|logFormat|logLevel|kubeconfig)$/ },
  { title: 'Kafka', readBy: 'all, the CLI and @kpm/client', paths: /^kafka\./ },
  { title: 'Labels', readBy: 'all', paths: /^labels\./ },
  { title: 'HTTP', readBy: 'all (the API: the state service)', paths: /^http\./ },
  {
    title: 'Pods (boot-worker)',
    readBy: 'the boot-worker',
    paths: /^(podManagement\.|commands\.|volumes$|homePathBase$)/,
  },
  {
    title: 'Watcher',
    readBy: 'the watcher (the boot-worker reads its ending rule too)',
    paths: /^watcher\./,
  },
  { title: 'State', readBy: 'the state service', paths: /^state\./ },
  { title: 'Security', readBy: 'the boot-worker and the state service', paths: /^security\./ },
  { title: 'drunc gateway', readBy: 'the drunc gateway', paths: /^gateway\./ },
  {
    title: "DUNE's feeds",
    readBy: 'the state service; the drunc gateway (describe: kafkaAddress, broadcast)',
    paths: /^feeds\./,
  },
];

/** The reference as Markdown (format it with Prettier before writing). */
export function settingsReference(root: string): string {
  const docs = docComments(join(root, SOURCES));
  const catalog = settingsCatalog();
  const placed = new Set<string>();
  const parts = [HEADER];
  for (const section of SECTIONS) {
    const settings = catalog.filter((s) => section.paths.test(s.path));
    settings.forEach((s) => placed.add(s.path));
    parts.push(`## ${section.title}\n\nRead by ${section.readBy}.\n\n${table(settings, docs)}`);
  }
  const unplaced = catalog.filter((s) => !placed.has(s.path)).map((s) => s.path);
  if (unplaced.length > 0) throw new Error(`settings in no section: ${unplaced.join(', ')}`);
  parts.push(druncWithoutEffect());
  return `${parts.join('\n\n')}\n`;
}

const HEADER = `# Settings reference

<!-- Generated from libs/config by \`npm run generate\`; a unit test fails when it is stale. -->

Every setting a kpm service reads. Each comes, last one winning, from its default, then the YAML
file named by \`KPM_CONFIG\` (the path, in camelCase), then its variable: \`KPM_\` and the path in
upper snake case. Some settings are also read by the variable they had before that rule, an old
name in the file, or drunc's name in a drunc process-manager configuration (\`KPM_CONFIG\` may be
one: [configuration.md](configuration.md)); giving one setting two names at once is an error.
A duration carries its unit in its name. Invalid settings stop a service at start, naming each
(exit code 78).

Variables take text: a number; \`true\` or \`false\`; a list as comma-separated values; a uid or
gid range as \`min-max\`; \`volumes\` as JSON.`;

function table(settings: readonly Setting[], docs: Map<string, string>): string {
  const rows = settings.map((s) => {
    const doc = docs.get(`${s.declaredBy.className}.${s.declaredBy.property}`) ?? '';
    return `| \`${s.path}\` | ${defaultOf(s)} | \`${s.env}\` | ${alsoRead(s)} | ${cell(doc)} |`;
  });
  return [
    '| setting | default | variable | also read as | what |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function defaultOf({ default: value, unit }: Setting): string {
  if (value === undefined) return 'unset';
  const text =
    Array.isArray(value) && value.length === 0
      ? '[]'
      : cell(JSON.stringify(value).replace(/"/g, ''));
  return unit ? `${text} ${unit}` : text;
}

function alsoRead(s: Setting): string {
  const names = [
    s.establishedEnv && `\`${s.establishedEnv}\``,
    s.oldPath && `\`${s.oldPath}\``,
    s.oldEnv && `\`${s.oldEnv}\``,
    s.drunc && `drunc \`${s.drunc}\``,
  ].filter(Boolean);
  return names.join(', ');
}

function druncWithoutEffect(): string {
  const rows = Object.entries(DRUNC_SETTINGS_WITHOUT_EFFECT).map(
    ([name, why]) => `- \`${name}\`: ${cell(why)}`,
  );
  const top = Object.entries(DRUNC_CONFIGURATION_WITHOUT_EFFECT).map(
    ([name, why]) => `- \`${name}\` (beside \`settings\`): ${cell(why)}`,
  );
  return `## drunc's settings kpm reads without effect

In a drunc configuration these are accepted and do nothing (the boot-worker names each at start):

${[...rows, ...top].join('\n')}`;
}

/** A table cell: one line, no pipe breaking the row. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}

/** `Class.property` → the property's doc comment, from the settings classes' sources. */
function docComments(dir: string): Map<string, string> {
  const docs = new Map<string, string>();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.includes('.spec'))) {
    const file = join(dir, name);
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    source.forEachChild((node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      for (const member of node.members) {
        if (!ts.isPropertyDeclaration(member)) continue;
        const text = ts
          .getJSDocCommentsAndTags(member)
          .filter(ts.isJSDoc)
          .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
          .join(' ');
        if (text) docs.set(`${node.name.text}.${member.name.getText(source)}`, text);
      }
    });
  }
  return docs;
}

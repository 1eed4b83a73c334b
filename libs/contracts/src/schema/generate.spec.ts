/**
 * The committed documents equal what the classes generate, the AsyncAPI document is valid,
 * and the example records parse on their topics.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Parser } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';
import { CommandType, CompletionType } from '../event-types';
import { parseRecord } from '../parse';
import { EVENT_TYPES, typeEntry } from '../registry';
import { topicName, TOPIC_IDS } from '../topics';
import { ASYNCAPI_FILE, EXAMPLES_DIR, generatedFiles, SCHEMAS_DIR } from './generate';

const ROOT = resolve(__dirname, '../../../..');

describe('generated documents', () => {
  let files: Record<string, string>;
  beforeAll(() => {
    files = generatedFiles(ROOT);
  }, 60_000);

  it('are committed as generated (else: run npm run generate)', () => {
    const stale = Object.entries(files)
      .filter(([path, content]) => {
        try {
          return readFileSync(join(ROOT, path), 'utf8') !== content;
        } catch {
          return true;
        }
      })
      .map(([path]) => path);
    const extra = readdirSync(join(ROOT, SCHEMAS_DIR))
      .map((name) => `${SCHEMAS_DIR}/${name}`)
      .filter((path) => !(path in files));
    if (stale.length + extra.length > 0) {
      throw new Error(
        `stale generated files, run npm run generate: ${[...stale, ...extra].join(', ')}`,
      );
    }
  });

  it('are deterministic', () => {
    expect(generatedFiles(ROOT)).toEqual(files);
  }, 60_000);

  it('include a JSON Schema per type that forbids unknown fields', () => {
    const boot = JSON.parse(files[`${SCHEMAS_DIR}/daq.kpm.command.boot.v1.json`]);
    expect(boot.properties.data).toEqual({ $ref: '#/definitions/BootCommand' });
    expect(boot.required).toEqual(
      expect.arrayContaining(['id', 'type', 'source', 'subject', 'data']),
    );
    expect(boot.definitions.ProcessSpec.additionalProperties).toBe(false);
    expect(boot.definitions.ProcessSpec.properties.env.propertyNames.pattern).toBe(
      '^[A-Za-z_][A-Za-z0-9_]*$',
    );
    expect(boot.definitions.BootCommand.properties.processes).toMatchObject({
      minItems: 1,
      maxItems: 5000,
    });
  });

  it('include an AsyncAPI 3.0 document without errors', async () => {
    const diagnostics = await new Parser().validate(files[ASYNCAPI_FILE]);
    // Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
    expect(
      diagnostics
        .filter((d) => Number(d.severity) === 0)
        .map((d) => `${d.path.join('.')}: ${d.message}`),
    ).toEqual([]);
  }, 60_000);

  it.each(TOPIC_IDS)('include an example record for %s that parses on that topic', (topic) => {
    const value = Buffer.from(files[`${EXAMPLES_DIR}/${topic}.json`]);
    const result = parseRecord(value, { topic: topicName(topic) });
    expect(result.ok ? 'ok' : result).toBe('ok');
  });

  describe('the AsyncAPI document', () => {
    type Doc = {
      components: { messages: Record<string, Record<string, unknown>> };
      operations: Record<string, { reply?: unknown }>;
    };
    let doc: Doc;
    beforeAll(() => {
      doc = parseYaml(files[ASYNCAPI_FILE]) as Doc;
    });

    it('has a message for every type, each with an example that parses on its topic', () => {
      // DUNE's feeds are protobuf messages, not CloudEvents (feed-channels.ts).
      const feeds = [
        'dunedaq.druncschema.BroadcastMessage',
        'dunedaq.ersschema.IssueChain',
        'dunedaq.opmon.OpMonEntry',
      ];
      expect(Object.keys(doc.components.messages).sort()).toEqual(
        [...EVENT_TYPES, ...feeds].sort(),
      );
      for (const feed of feeds) {
        const payload = doc.components.messages[feed].payload as { schema: string };
        expect(payload.schema).toContain(`message ${feed.split('.').at(-1)} {`);
      }
      expect(EVENT_TYPES).toHaveLength(18);
      for (const type of EVENT_TYPES) {
        const [example] = doc.components.messages[type].examples as Array<{ payload: unknown }>;
        const value = Buffer.from(JSON.stringify(example.payload));
        const result = parseRecord(value, { topic: topicName(typeEntry(type).topic) });
        expect(result.ok ? `${type} ok` : result).toBe(`${type} ok`);
      }
    });

    it('correlates commands with their completion by command id; commands declare the reply', () => {
      const { messages } = doc.components;
      for (const type of Object.values(CommandType)) {
        expect(messages[type].correlationId).toMatchObject({ location: '$message.payload#/id' });
      }
      expect(messages[CompletionType.commandCompleted].correlationId).toMatchObject({
        location: '$message.payload#/data/commandId',
      });
      expect(doc.operations['clients.send.commands'].reply).toEqual({
        channel: { $ref: '#/channels/completions' },
        messages: [{ $ref: `#/channels/completions/messages/${CompletionType.commandCompleted}` }],
      });
    });
  });

  it('every example record on disk parses on the topic of its type', () => {
    const names = readdirSync(join(ROOT, EXAMPLES_DIR)).filter((n) => n.endsWith('.json'));
    expect(names.length).toBeGreaterThanOrEqual(TOPIC_IDS.length);
    for (const name of names) {
      const value = readFileSync(join(ROOT, EXAMPLES_DIR, name));
      const { type } = JSON.parse(value.toString()) as { type: (typeof EVENT_TYPES)[number] };
      const result = parseRecord(value, { topic: topicName(typeEntry(type).topic) });
      expect(result.ok ? `${name} ok` : result).toBe(`${name} ok`);
    }
  });
});

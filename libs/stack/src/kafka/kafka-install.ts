import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { KafkaStackSettings } from './kafka-settings';
import { runCommand } from '../run-command';

/** Written last into the install directory: its presence means the libs are complete. */
const MARKER = 'installed.json';

interface InstallMarker {
  version: string;
  /** Hash of pom.xml: a changed pom (say, another logging binding) resolves again. */
  pomSha256: string;
  jars: string[];
}

/** True when `<tool cache>/kafka-<version>/libs` holds the jars the current pom resolves to. */
export function isKafkaInstalled(settings: KafkaStackSettings): boolean {
  const markerFile = join(settings.installDir, MARKER);
  if (!existsSync(markerFile)) return false;
  try {
    const marker = JSON.parse(readFileSync(markerFile, 'utf8')) as InstallMarker;
    return (
      marker.version === settings.version &&
      marker.pomSha256 === pomHash(settings) &&
      marker.jars.every((jar) => existsSync(join(settings.libsDir, jar)))
    );
  } catch {
    return false;
  }
}

/**
 * Resolves the broker's runtime jars from Maven Central (through ~/.m2) into
 * `<tool cache>/kafka-<version>/libs`; does nothing when they are already there. Returns whether it
 * resolved. The jars land in a scratch directory that is renamed into place, so an interrupted
 * or concurrent install never leaves a half-filled libs directory behind.
 */
export async function installKafka(settings: KafkaStackSettings): Promise<boolean> {
  if (isKafkaInstalled(settings)) return false;
  mkdirSync(settings.installDir, { recursive: true });
  const scratch = `${settings.libsDir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    await runCommand(
      'mvn',
      [
        '-q',
        '-B',
        '-Dstyle.color=never',
        '-f',
        settings.pomFile,
        'dependency:copy-dependencies',
        '-DincludeScope=runtime',
        `-DoutputDirectory=${scratch}`,
      ],
      { timeoutMs: 15 * 60_000, installHint: 'install Maven 3, e.g. apt-get install maven' },
    );
    const jars = readdirSync(scratch).filter((name) => name.endsWith('.jar'));
    for (const expected of [`kafka_2.13-${settings.version}.jar`, 'log4j-slf4j-impl-']) {
      if (!jars.some((jar) => jar.startsWith(expected))) {
        throw new Error(`kpm: Maven resolved no ${expected}* from ${settings.pomFile}`);
      }
    }
    rmSync(settings.libsDir, { recursive: true, force: true });
    // The class archive belongs to the old jars.
    rmSync(settings.classArchive, { force: true });
    renameSync(scratch, settings.libsDir);
    const marker: InstallMarker = { version: settings.version, pomSha256: pomHash(settings), jars };
    writeFileSync(join(settings.installDir, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    return true;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The JVM to run: `$JAVA_HOME/bin/java` when set, else `java` from PATH (Kafka 4 needs 17+). */
export function javaCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : 'java';
}

/** Arguments that put the installed jars and our logging config in front of a main class. */
export function javaClasspathArgs(settings: KafkaStackSettings): string[] {
  // The JVM expands the `dir/*` wildcard itself; no shell is involved.
  return [`-Dlog4j2.configurationFile=${settings.log4jFile}`, '-cp', join(settings.libsDir, '*')];
}

function pomHash(settings: KafkaStackSettings): string {
  return createHash('sha256').update(readFileSync(settings.pomFile)).digest('hex');
}

/** Installs the pinned release unless it is there, telling the user why the first `up` is slow. */
export async function ensureKafkaInstalled(
  settings: KafkaStackSettings,
  progress: (message: string) => void,
): Promise<void> {
  if (isKafkaInstalled(settings)) return;
  progress(`kafka: resolving Apache Kafka ${settings.version} with Maven (first use only)`);
  await installKafka(settings);
}

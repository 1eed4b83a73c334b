/** What every client command needs: settings from the stack and environment, a client, a user. */
import { eventSource } from '@kpm/contracts';
import { hostname } from 'node:os';
import { InvalidSettingsError, loadSettings, type KpmSettings } from '@kpm/config';
import { connectProcessManager, localUser, type ProcessManagerClient } from '@kpm/client';
import { readStackEnv } from '@kpm/stack/local-stack'; // not the index: it loads the stack
import { insideCheckout } from '@kpm/stack/paths';
import { CliError, ExitCode } from './exit-codes';

/** `.kpm/stack.env` first, the environment over it (so `KPM_TOPIC_PREFIX=… kpm ps` works). */
export function cliSettings(): KpmSettings {
  try {
    return loadSettings('cli', { ...localStackEnv(), ...process.env });
  } catch (error) {
    if (error instanceof InvalidSettingsError) throw new CliError(error.message, ExitCode.usage);
    throw error;
  }
}

/** The local stack's variables; none for a CLI installed from a package, outside a checkout. */
function localStackEnv(): Record<string, string> {
  return process.env.KPM_HOME || insideCheckout() ? readStackEnv() : {};
}

/** Who asks: `KPM_USER`, else the login name. */
export function invokingUser(): string {
  return process.env.KPM_USER ?? localUser();
}

/** Runs `work` with a client acting as `user` (`--as`; default you), closed afterwards. */
export async function withClient<T>(
  work: (client: ProcessManagerClient) => Promise<T>,
  user?: string,
): Promise<T> {
  const { client, brokers } = openClient(user);
  try {
    return await work(client);
  } catch (error) {
    throw explainKafkaError(error, brokers);
  } finally {
    await client.close();
  }
}

/** A client under the CLI's settings, acting as `user` (default you); the caller closes it. */
export function openClient(user: string = invokingUser()): {
  client: ProcessManagerClient;
  brokers: readonly string[];
} {
  const settings = cliSettings();
  const client = connectProcessManager({
    brokers: settings.kafka.brokers,
    ssl: settings.kafka.ssl,
    sasl: settings.kafka.sasl,
    topicPrefix: settings.kafka.topicPrefix,
    clientId: 'kpm-cli',
    source: eventSource('cli', hostname()),
    // kill, restart, logs and flush act as this user; the services refuse others' sessions.
    user,
  });
  return { client, brokers: settings.kafka.brokers };
}

/** kafkajs' errors in one line, with what to do when the broker cannot be reached. */
export function explainKafkaError(error: unknown, brokers: readonly string[]): unknown {
  if (!(error instanceof Error) || !error.name.startsWith('KafkaJS')) return error;
  const messages = [error.message];
  if (error.cause instanceof Error && error.cause.message !== error.message) {
    messages.push(error.cause.message);
  }
  const detail = messages.join(': ');
  if (/connect|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND/i.test(detail)) {
    return new CliError(
      `cannot reach Kafka at ${brokers.join(',')} (${detail}); is the stack up? npx kpm stack up`,
    );
  }
  return new CliError(`Kafka: ${detail}`);
}

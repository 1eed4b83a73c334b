/**
 * The least Kafka ACLs each kpm principal needs (docs/design.md §11.13; the table in
 * README.md "Security model" is this one): the boot-worker reads commands and writes process
 * events, broadcasts and dead letters; the watcher writes terminations and broadcasts; the state
 * service reads its inputs and writes its outputs in transactions; an operator writes commands
 * and reads everything. Every principal may describe kpm's topics (metadata, offsets, configs).
 */
import {
  AclOperationTypes as Op,
  type AclEntry,
  type Admin,
  AclPermissionTypes,
  AclResourceTypes as Resource,
  ResourcePatternTypes,
} from 'kafkajs';
import { BACKOFF, retry } from '@kpm/common';
import { topicName, TOPIC_IDS, type TopicId } from '@kpm/contracts';
import type { KafkaClient } from './kafka-client';
import { consumerGroupId } from './kpm-topics';

export type KpmRole = 'boot-worker' | 'watcher' | 'state' | 'drunc-gateway' | 'operator';

/** One grant: `principal` may `operation` on the topic, group or transactional id `name`. */
interface KpmAcl {
  principal: string;
  resource: 'topic' | 'group' | 'transactional-id' | 'cluster';
  /** A literal name, or a prefix when `prefixed`. */
  name: string;
  prefixed: boolean;
  operation: 'read' | 'write' | 'describe' | 'describe-configs' | 'idempotent-write';
}

interface RoleNeeds {
  reads: readonly TopicId[];
  writes: readonly TopicId[];
  /** Consumer group ids (prefixed by `<topicPrefix>-`), transactional id prefixes likewise. */
  groups: readonly string[];
  transactions: boolean;
}

const NEEDS: Record<KpmRole, RoleNeeds> = {
  'boot-worker': {
    reads: ['commands'],
    writes: ['process-events', 'broadcast', 'dead-letters'],
    groups: ['boot-worker'],
    transactions: false,
  },
  // The start-up sweep reads the process table (docs/design.md §8), in no consumer group.
  watcher: {
    reads: ['processes'],
    writes: ['terminations', 'broadcast'],
    groups: [],
    transactions: false,
  },
  state: {
    // dead-letters: a valid command the boot-worker gave up on is completed as failed.
    reads: [
      'commands',
      'process-events',
      'terminations',
      'dead-letters',
      'completions',
      'processes',
      'state-snapshots',
    ],
    // commands: a command on the wrong partition is forwarded; the dashboard asks for logs.
    // state-snapshots: no other principal may write them, a restore trusts them (§9.4).
    writes: [
      'commands',
      'completions',
      'broadcast',
      'processes',
      'dead-letters',
      'state-snapshots',
    ],
    groups: ['state'],
    transactions: true,
  },
  // drunc's ProcessManager over @kpm/client: sends commands, reads their completions in no
  // consumer group (docs/design.md §2.1), broadcasts SERVER_READY like every service.
  'drunc-gateway': {
    reads: ['completions'],
    writes: ['commands', 'broadcast'],
    groups: [],
    transactions: false,
  },
  operator: { reads: [...TOPIC_IDS], writes: ['commands'], groups: [''], transactions: false },
};

/**
 * DUNE's feeds (docs/design.md §5.7) are named by DUNE, not under kpm's prefix: the state
 * service writes them (in its transactions) and an operator reads them; each literal topic
 * also gets Describe, so the state service sees that it exists.
 */
const FEED_OPERATIONS: Partial<Record<KpmRole, readonly KpmAcl['operation'][]>> = {
  state: ['write', 'describe'],
  operator: ['read', 'describe'],
};

/**
 * The grants of `principal` in role `role` over the topics of `topicPrefix`, and over DUNE's
 * feed topics `feedTopics` (`control.<session>.<name>`, `monitoring.<topic>`, the ERS topic).
 */
export function kpmAcls(
  role: KpmRole,
  principal: string,
  topicPrefix: string,
  feedTopics: readonly string[] = [],
): KpmAcl[] {
  const needs = NEEDS[role];
  const feeds = feedTopics.flatMap((name) =>
    (FEED_OPERATIONS[role] ?? []).map((operation): KpmAcl => ({
      principal,
      resource: 'topic',
      name,
      prefixed: false,
      operation,
    })),
  );
  const topic = (id: TopicId, operation: KpmAcl['operation']): KpmAcl => ({
    principal,
    resource: 'topic',
    name: topicName(id, topicPrefix),
    prefixed: false,
    operation,
  });
  const prefixed = (resource: KpmAcl['resource'], name: string, operation: KpmAcl['operation']) =>
    ({ principal, resource, name, prefixed: true, operation }) as KpmAcl;
  return [
    prefixed('topic', `${topicPrefix}.`, 'describe'),
    prefixed('topic', `${topicPrefix}.`, 'describe-configs'),
    ...needs.reads.map((id) => topic(id, 'read')),
    ...needs.writes.map((id) => topic(id, 'write')),
    ...needs.groups.map((g) => prefixed('group', `${topicPrefix}-${g}`, 'read')),
    ...(needs.writes.length > 0
      ? [
          {
            principal,
            resource: 'cluster',
            name: 'kafka-cluster',
            prefixed: false,
            operation: 'idempotent-write',
          } as KpmAcl,
        ]
      : []),
    ...(needs.transactions
      ? (['write', 'describe'] as const).map((op) =>
          prefixed('transactional-id', consumerGroupId(topicPrefix, 'state'), op),
        )
      : []),
    ...feeds,
  ];
}

const RESOURCE = {
  topic: Resource.TOPIC,
  group: Resource.GROUP,
  'transactional-id': Resource.TRANSACTIONAL_ID,
  cluster: Resource.CLUSTER,
} as const;

const OPERATION = {
  read: Op.READ,
  write: Op.WRITE,
  describe: Op.DESCRIBE,
  'describe-configs': Op.DESCRIBE_CONFIGS,
  'idempotent-write': Op.IDEMPOTENT_WRITE,
} as const;

/**
 * Creates the grants (idempotent: an existing ACL is kept), then waits until the broker enforces
 * them. Needs a principal allowed to alter ACLs. A KRaft broker forwards CreateAcls to the
 * controller and answers once the controller has committed them; its own authorizer applies
 * them when it replays the metadata log, later under load. A client of a principal connecting
 * in between saw kpm's topics missing (metadata filtered by DESCRIBE) and was refused creating
 * them. DescribeAcls is answered from that same authorizer, so it says when the grants hold.
 */
export async function applyAcls(
  kafka: KafkaClient,
  acls: readonly KpmAcl[],
  deadlineMs = 60_000,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl: acls.map(aclBinding) });
    await retry(
      async () => {
        const missing = await missingAcls(admin, acls);
        if (missing.length > 0) throw new AclsNotYetEnforced(missing);
      },
      {
        backoff: BACKOFF.aclsEnforced,
        deadlineMs,
        retryable: (e) => e instanceof AclsNotYetEnforced,
      },
    );
  } finally {
    await admin.disconnect();
  }
}

class AclsNotYetEnforced extends Error {
  constructor(missing: readonly KpmAcl[]) {
    const named = missing.map((a) => `${a.principal} ${a.operation} ${a.resource} ${a.name}`);
    super(`the broker does not enforce ${missing.length} ACL(s) yet: ${named.join('; ')}`);
  }
}

function aclBinding(acl: KpmAcl): AclEntry {
  return {
    principal: `User:${acl.principal}`,
    host: '*',
    resourceType: RESOURCE[acl.resource],
    resourceName: acl.name,
    resourcePatternType: acl.prefixed
      ? ResourcePatternTypes.PREFIXED
      : ResourcePatternTypes.LITERAL,
    operation: OPERATION[acl.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

/** The grants the broker's authorizer does not list yet. */
async function missingAcls(admin: Admin, acls: readonly KpmAcl[]): Promise<KpmAcl[]> {
  const { resources } = await admin.describeAcls({
    resourceType: Resource.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: Op.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  const held = new Set(
    resources.flatMap((r) =>
      r.acls.map((a) =>
        aclKey(a.principal, r.resourceType, r.resourceName, r.resourcePatternType, a.operation),
      ),
    ),
  );
  return acls.filter((acl) => {
    const b = aclBinding(acl);
    return !held.has(
      aclKey(b.principal, b.resourceType, b.resourceName, b.resourcePatternType, b.operation),
    );
  });
}

function aclKey(...parts: ReadonlyArray<string | number>): string {
  return parts.join('\u0000');
}

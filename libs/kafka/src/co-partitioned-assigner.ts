/**
 * A kafkajs partition assigner that gives each member whole partition *numbers*: partition p of
 * every subscribed topic goes to the same member. kpm keys every session-scoped topic by session
 * with the same partition count, so one member sees all of a session's commands, facts and
 * terminations (kafkajs' round-robin default would split them across members).
 */
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

const { MemberAssignment, MemberMetadata } = AssignerProtocol;

const CO_PARTITIONED_ASSIGNER_NAME = 'KpmCoPartitionedAssigner';

/** Partition numbers for `members` (sorted ids): p goes to members[p mod n]. */
export function coPartitionedPlan(
  memberIds: readonly string[],
  partitionCount: number,
): Map<string, number[]> {
  const sorted = [...memberIds].sort();
  const plan = new Map<string, number[]>(sorted.map((id) => [id, []]));
  for (let p = 0; p < partitionCount; p++) plan.get(sorted[p % sorted.length])!.push(p);
  return plan;
}

export const CoPartitionedAssigner: PartitionAssigner = ({ cluster }) => ({
  name: CO_PARTITIONED_ASSIGNER_NAME,
  version: 0,
  assign({ members, topics }) {
    const counts = topics.map((topic) => cluster.findTopicPartitionMetadata(topic).length);
    const plan = coPartitionedPlan(
      members.map((m) => m.memberId),
      Math.max(0, ...counts),
    );
    return Promise.resolve(
      [...plan].map(([memberId, partitions]) => {
        const assignment: Record<string, number[]> = {};
        topics.forEach((topic, i) => {
          assignment[topic] = partitions.filter((p) => p < counts[i]);
        });
        return {
          memberId,
          memberAssignment: MemberAssignment.encode({
            version: 0,
            assignment,
            userData: Buffer.alloc(0),
          }),
        };
      }),
    );
  },
  protocol({ topics }) {
    return {
      name: CO_PARTITIONED_ASSIGNER_NAME,
      metadata: MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    };
  },
});

import type { Connection } from '@temporalio/client';
import { msNumberToTs } from '@temporalio/common/lib/time';

/**
 * Sets how long Temporal keeps the history of closed workflows in the namespace. Returns the
 * retention before and after, or `refused` with the server's reason where the operator API does
 * not allow it (Temporal Cloud sets retention in its own console / cloud ops API).
 */
export async function setNamespaceRetention(
  connection: Pick<Connection, 'workflowService'>,
  namespace: string,
  days: number,
): Promise<{ outcome: 'set'; beforeDays: number | null } | { outcome: 'refused'; reason: string }> {
  const seconds = (ttl: { seconds?: unknown } | null | undefined) => (ttl?.seconds == null ? null : Number(ttl.seconds));
  const before = await connection.workflowService.describeNamespace({ namespace });
  const beforeSeconds = seconds(before.config?.workflowExecutionRetentionTtl);
  try {
    await connection.workflowService.updateNamespace({
      namespace,
      config: { workflowExecutionRetentionTtl: msNumberToTs(days * 86_400_000) },
    });
  } catch (err) {
    const code = (err as { code?: number }).code;
    // PERMISSION_DENIED (7), UNIMPLEMENTED (12), INVALID_ARGUMENT (3): the cluster decides, not us.
    if (code === 7 || code === 12 || code === 3) return { outcome: 'refused', reason: (err as Error).message };
    throw err;
  }
  return { outcome: 'set', beforeDays: beforeSeconds === null ? null : beforeSeconds / 86_400 };
}

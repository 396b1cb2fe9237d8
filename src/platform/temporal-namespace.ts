import type { Connection } from '@temporalio/client';
import { msNumberToTs } from '@temporalio/common/lib/time';
import { GRPC_STATUS, grpcCode, refusedByServer, serverReason } from './grpc-status';

const DAY_SECONDS = 86_400;
type NamespaceServices = Pick<Connection, 'workflowService'>;

/** The namespace's retention in days, null when the server does not say. */
function retentionDays(ttl: { seconds?: unknown } | null | undefined): number | null {
  return ttl?.seconds == null ? null : Number(ttl.seconds) / DAY_SECONDS;
}

/**
 * Makes sure the namespace exists: creates it with `days` of retention when the server says it is
 * not there (a self-hosted cluster without it). `refused` when the server will not create it
 * (Temporal Cloud: namespaces are made in its console or with tcld), with the server's reason.
 */
export async function ensureNamespace(
  connection: NamespaceServices,
  namespace: string,
  days: number,
): Promise<{ outcome: 'exists'; retentionDays: number | null } | { outcome: 'created' } | { outcome: 'refused'; reason: string }> {
  try {
    const d = await connection.workflowService.describeNamespace({ namespace });
    return { outcome: 'exists', retentionDays: retentionDays(d.config?.workflowExecutionRetentionTtl) };
  } catch (err) {
    if (grpcCode(err) !== GRPC_STATUS.notFound) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msNumberToTs(days * DAY_SECONDS * 1_000),
    });
  } catch (err) {
    if (refusedByServer(err)) return { outcome: 'refused', reason: serverReason(err) };
    // Another init created it in between.
    if (grpcCode(err) !== GRPC_STATUS.alreadyExists) throw err;
  }
  return { outcome: 'created' };
}

/**
 * Sets how long Temporal keeps the history of closed workflows in the namespace. Returns the
 * retention before, `unchanged` when it already is `days` (no update asked, so a server that
 * refuses updates is not bothered), or `refused` with the server's reason where the operator API
 * does not allow it (Temporal Cloud sets retention in its own console / cloud ops API).
 */
export async function setNamespaceRetention(
  connection: NamespaceServices,
  namespace: string,
  days: number,
): Promise<
  | { outcome: 'set'; beforeDays: number | null }
  | { outcome: 'unchanged' }
  | { outcome: 'refused'; reason: string; beforeDays: number | null }
> {
  const before = await connection.workflowService.describeNamespace({ namespace });
  const beforeDays = retentionDays(before.config?.workflowExecutionRetentionTtl);
  if (beforeDays === days) return { outcome: 'unchanged' };
  try {
    await connection.workflowService.updateNamespace({
      namespace,
      config: { workflowExecutionRetentionTtl: msNumberToTs(days * DAY_SECONDS * 1_000) },
    });
  } catch (err) {
    // INVALID_ARGUMENT too: a cluster whose limits do not allow this retention decides, not us.
    if (refusedByServer(err) || grpcCode(err) === GRPC_STATUS.invalidArgument)
      return { outcome: 'refused', reason: serverReason(err), beforeDays };
    throw err;
  }
  return { outcome: 'set', beforeDays };
}

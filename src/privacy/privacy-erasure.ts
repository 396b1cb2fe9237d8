/**
 * Erasure of one correspondent's data: their workflow executions, their index entries (full text,
 * vectors, graph) and their MariaDB rows, in that order, each step recorded in a progress row keyed
 * by the salted address hash, so a run that stopped half-way is finished by the next one. The
 * audit trail keeps what happened (the hash, counts, who asked), never the address.
 */
import { ACCESS_ACTIONS, PRIVACY_EVENTS } from './privacy.contract';
import { FAILURE_TYPES } from '../platform/contract';
import { PermanentError } from '../platform/errors';
import { addressHash, mergeIds, subjectAddress, type SubjectIds } from './privacy-subject';
import type { AccessLog } from './access-log.port';
import type { PrivacyStore } from './privacy-store.port';
import type { AuditLog } from '../platform/store.port';
import type { VectorIndex } from '../retrieval';
import type { WorkflowEraser } from './workflow-eraser.port';

export interface ErasureDeps {
  store: PrivacyStore;
  index: Pick<VectorIndex, 'forgetEmails'>;
  workflows: WorkflowEraser;
  audit: AuditLog;
  access: AccessLog;
  now?: () => number;
}

export interface ErasureRequest {
  address: string;
  /** The person who asked for it: recorded in the audit trail and the access log. */
  by: string;
  /** Erase even though a send of theirs is running or in doubt (a person checked it). */
  force?: boolean;
  dryRun?: boolean;
}

export interface ErasureReport {
  addressHash: string;
  dryRun: boolean;
  /** An earlier run of the same erasure had stopped; this one continued it. */
  resumed: boolean;
  emails: number;
  sentReplies: number;
  cases: number;
  /** Sends of theirs running or in doubt (refused without force). */
  unsettledSends: Array<{ emailId: string; status: string }>;
  counts: Record<string, number>;
  ms: number;
}

const NO_IDS: SubjectIds = { emailIds: [], sentIds: [], caseIds: [], names: [] };

export class ErasureRefusedError extends PermanentError {
  constructor(message: string) {
    super(message, FAILURE_TYPES.privacyEraseRefused);
  }
}

export async function eraseCorrespondent(deps: ErasureDeps, req: ErasureRequest): Promise<ErasureReport> {
  const now = deps.now ?? Date.now;
  const started = now();
  const address = subjectAddress(req.address);
  if (!req.by.trim()) throw new TypeError('an erasure needs the name of the person who asked for it (--by)');
  const hash = addressHash(await deps.store.salt(), address);
  const before = await deps.store.progress(hash);
  const ids = mergeIds(before?.ids ?? NO_IDS, await deps.store.find(address));
  const unsettled = await deps.store.unsettledSends(ids.emailIds);
  const report: ErasureReport = {
    addressHash: hash,
    dryRun: req.dryRun === true,
    resumed: before !== null && before.finishedAt === null,
    emails: ids.emailIds.length,
    sentReplies: ids.sentIds.length,
    cases: ids.caseIds.length,
    unsettledSends: unsettled,
    counts: {},
    ms: 0,
  };
  if (req.dryRun) return { ...report, ms: now() - started };
  // Forced once by a named person: continuing or repeating that erasure does not ask again.
  const forced = req.force === true || before?.forced === true;
  const correlationId = `privacy-erase-${hash.slice(0, 16)}`;
  if (unsettled.length > 0 && !forced) {
    await deps.audit.record({
      emailId: null,
      correlationId,
      eventType: PRIVACY_EVENTS.eraseRefused,
      errorClass: 'permanent',
      actor: req.by,
      message: `erasure refused: ${unsettled.length} send(s) running or in doubt; check them, then erase with --force`,
      details: { addressHash: hash, sends: unsettled },
    });
    throw new ErasureRefusedError(
      `${unsettled.length} send(s) of this correspondent are running or in doubt (${unsettled.map((s) => `${s.emailId}: ${s.status}`).join(', ')}); ` +
        'settle them (resend or mark-sent) or erase with --force --by NAME',
    );
  }
  await deps.store.begin(hash, req.by, forced, ids);
  const counts: Record<string, number> = {};
  // Executions first: a running email workflow must not write their data back after the rows are gone.
  const wf = await deps.workflows.erase([...ids.emailIds, ...ids.caseIds]);
  counts.workflows_deleted = wf.deleted;
  counts.workflows_terminated = wf.terminated;
  await deps.store.step(hash, 'workflows', wf.deleted);
  await deps.index.forgetEmails?.([...ids.emailIds, ...ids.sentIds], address);
  await deps.store.step(hash, 'indexes', ids.emailIds.length + ids.sentIds.length);
  Object.assign(counts, await deps.store.erase(address, hash, ids));
  await deps.store.step(hash, 'mariadb', ids.emailIds.length);
  await deps.audit.record({
    emailId: null,
    correlationId,
    eventType: PRIVACY_EVENTS.erased,
    actor: req.by,
    message: `erased the data of one correspondent: ${ids.emailIds.length} email(s), ${ids.caseIds.length} case(s)${forced ? ' (forced)' : ''}`,
    details: { addressHash: hash, forced, resumed: report.resumed, ...counts },
  });
  await deps.access.record({ actor: req.by, action: ACCESS_ACTIONS.erased, subjectHash: hash, detail: `${ids.emailIds.length} email(s)` });
  await deps.store.finish(hash);
  return { ...report, counts, ms: now() - started };
}

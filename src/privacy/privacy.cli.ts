import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { configuredGraph, createFullTextIndex } from '../retrieval/index.adapters';
import { createQdrantIndex, createCompositeIndex, type VectorIndex } from '../retrieval';
import { createMariaDbAccessLog } from './access-log.mariadb';
import { createMariaDbAttachmentStore } from '../attachments/index.adapters';
import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbMessageStore } from '../email/index.adapters';
import type { Pool } from '../platform/pool.mariadb';
import { readSubjectExport } from './privacy-export.mariadb';
import { createMariaDbPrivacyStore } from './privacy-store.mariadb';
import { createMariaDbRetentionStore } from './retention-store.mariadb';
import { createTemporalEraser } from './workflow-eraser.temporal';
import { createZipArchive } from './zip-archive';
import { createRetentionActivities, type PurgeResult } from './retention.activities';
import type { Config } from '../platform/config';
import { ACCESS_ACTIONS, PRIVACY_EVENTS } from './privacy.contract';
import { errorMessage } from '../platform/errors';
import { eraseCorrespondent, ErasureRefusedError, type ErasureReport } from './privacy-erasure';
import { addressHash, subjectAddress } from './privacy-subject';
import { CliError, connectDatabase, connectTemporal } from '../platform/cli-context';
import { byOrActor, groupUsage, JSON_OPTION, text, type CliCommand } from '../platform/cli-command';

/** Forgetting needs no vectors: Qdrant is reached without an embedder. */
const NO_EMBEDDER = { model: 'none', embed: () => Promise.reject(new Error('forgetting embeds nothing')) };

function address(input: string): string {
  try {
    return subjectAddress(input);
  } catch (err) {
    throw new CliError(errorMessage(err), 2);
  }
}

/** Every index the configuration names, for forgetting: full text always, Qdrant and ArangoDB when set. */
export function forgettingIndex(config: Config, pool: Pool): Pick<VectorIndex, 'forgetEmails'> {
  return createCompositeIndex({
    primary: createFullTextIndex(pool),
    vector: config.qdrant ? createQdrantIndex({ ...config.qdrant, embedder: NO_EMBEDDER }) : undefined,
    graph: configuredGraph(config),
    messages: createMariaDbMessageStore(pool),
    onDegraded: () => Promise.resolve(),
  });
}

export interface ExportResult {
  file: string;
  addressHash: string;
  emails: number;
  rawMessages: number;
  attachments: number;
}

const safeId = (id: string): string => id.replace(/[^A-Za-z0-9._-]/g, '_');

/**
 * Everything held about one address as one zip: `data.json` (rows of every table, by kind),
 * `eml/<email id>.eml` (the raw messages as received) and `attachments/<email id>/<n>-<name>`
 * (each stored attachment; its row in data.json names the file). A zip, not a folder: one file to hand over
 * or encrypt, and written as a stream, so a large export does not sit in memory.
 */
export async function privacyExport(config: Config, input: string, opts: { out?: string; by: string }): Promise<ExportResult> {
  const subject = address(input);
  const pool = await connectDatabase(config);
  try {
    const store = createMariaDbPrivacyStore(pool);
    const hash = addressHash(await store.salt(), subject);
    const ids = await store.find(subject);
    const data = await readSubjectExport(pool, subject, ids);
    const dir = path.resolve(opts.out ?? '.');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `privacy-export-${hash.slice(0, 12)}-${new Date().toISOString().slice(0, 10)}.zip`);
    let zip;
    try {
      zip = createZipArchive(file);
    } catch (err) {
      throw new CliError(`cannot write ${file}: ${errorMessage(err)}`, 2);
    }
    const messages = createMariaDbMessageStore(pool);
    let raw = 0;
    for (const id of ids.emailIds) {
      const bytes = await messages.getRaw(id);
      if (!bytes) continue;
      zip.add(`eml/${safeId(id)}.eml`, bytes);
      raw++;
    }
    const files = createMariaDbAttachmentStore(pool);
    for (const a of data.attachments) {
      const bytes = await files.content(String(a.email_id), Number(a.part_index));
      if (!bytes) continue;
      // The name the customer gave the file, made safe for a zip path; the part index keeps names apart.
      const name = String(a.filename ?? 'attachment')
        .replace(/[^\p{L}\p{N}._-]+/gu, '_')
        .slice(0, 120);
      const file = `attachments/${safeId(String(a.email_id))}/${Number(a.part_index) + 1}-${name}`;
      a.file = file;
      zip.add(file, bytes);
    }
    const also = [config.qdrant && 'Qdrant (the passages above, with vectors)', config.arango && 'ArangoDB (sender, emails, threads)'];
    zip.add(
      'data.json',
      JSON.stringify({ address: subject, exportedAt: new Date().toISOString(), alsoStoredIn: also.filter(Boolean), ...data }, null, 2),
    );
    await zip.close();
    await createMariaDbAuditLog(pool).record({
      emailId: null,
      correlationId: `privacy-export-${hash.slice(0, 16)}`,
      eventType: PRIVACY_EVENTS.exported,
      actor: opts.by,
      message: `exported the data of one correspondent: ${ids.emailIds.length} email(s), ${raw} raw message(s), ${data.attachments.length} attachment(s)`,
      details: { addressHash: hash, emails: ids.emailIds.length, cases: ids.caseIds.length },
    });
    await createMariaDbAccessLog(pool).record({ actor: opts.by, action: ACCESS_ACTIONS.exported, subjectHash: hash, detail: file });
    return { file, addressHash: hash, emails: ids.emailIds.length, rawMessages: raw, attachments: data.attachments.length };
  } finally {
    await pool.end();
  }
}

export async function privacyErase(
  config: Config,
  input: string,
  opts: { by: string; force: boolean; dryRun: boolean },
): Promise<ErasureReport> {
  const subject = address(input);
  const pool = await connectDatabase(config);
  const temporal = opts.dryRun ? null : await connectTemporal(config);
  try {
    return await eraseCorrespondent(
      {
        store: createMariaDbPrivacyStore(pool),
        index: forgettingIndex(config, pool),
        workflows: temporal ? createTemporalEraser(temporal.client) : { erase: () => Promise.reject(new Error('dry run')) },
        audit: createMariaDbAuditLog(pool),
        access: createMariaDbAccessLog(pool),
      },
      { address: subject, by: opts.by, force: opts.force, dryRun: opts.dryRun },
    );
  } catch (err) {
    if (err instanceof ErasureRefusedError) throw new CliError(err.message, 5);
    throw err;
  } finally {
    await temporal?.close();
    await pool.end();
  }
}

export function formatErasure(r: ErasureReport): string {
  const head = `${r.dryRun ? 'would erase' : 'erased'} ${r.emails} email(s), ${r.sentReplies} sent repl(ies), ${r.cases} case(s) (address hash ${r.addressHash.slice(0, 12)}…)`;
  const sends = r.unsettledSends.length
    ? `\nsends running or in doubt: ${r.unsettledSends.map((s) => `${s.emailId} ${s.status}`).join(', ')}`
    : '';
  const counts = Object.entries(r.counts)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `${head}${r.resumed ? ' — continued an erasure that had stopped' : ''}${sends}${counts ? `\n${counts}` : ''}${r.dryRun ? '' : `\nin ${r.ms} ms`}`;
}

/** Runs the retention purge until nothing expired is left (or once, for a dry run). */
export async function privacyPurge(config: Config, opts: { dryRun: boolean; batchSize?: number }): Promise<PurgeResult> {
  const pool = await connectDatabase(config);
  try {
    const { purgeExpired } = createRetentionActivities({
      store: createMariaDbRetentionStore(pool),
      settings: config.retention,
      index: forgettingIndex(config, pool),
      audit: createMariaDbAuditLog(pool),
    });
    const total: Record<string, number> = {};
    for (;;) {
      const r = await purgeExpired({ batchSize: opts.batchSize ?? 500, dryRun: opts.dryRun, budgetMs: 60_000 });
      for (const [k, n] of Object.entries(r.purged)) total[k] = (total[k] ?? 0) + n;
      if (!r.more || opts.dryRun) return { purged: total, more: false };
    }
  } finally {
    await pool.end();
  }
}

const oneAddress = (rest: string[]) => rest.length === 1 && !!rest[0];

export const privacyCommands: CliCommand[] = [
  {
    name: 'privacy export',
    usage: `privacy export <address> [--out DIR] [--by NAME]
                                        everything held about the address as one zip (data.json + .eml files)`,
    options: { ...JSON_OPTION, out: { type: 'string' }, by: { type: 'string' } },
    accepts: oneAddress,
    run(ctx, { positionals, values }) {
      const out = text(values, 'out');
      return privacyExport(ctx.config(), positionals[0]!, { by: byOrActor(values), ...(out ? { out } : {}) });
    },
    format: (r) => `${r.file}: ${r.emails} email(s), ${r.rawMessages} raw message(s), ${r.attachments} attachment(s)`,
  } satisfies CliCommand<ExportResult>,
  {
    name: 'privacy erase',
    usage: `privacy erase <address> --by NAME [--force] [--dry-run]
                                        erase their data in MariaDB, the indexes and Temporal; exit 5 if a send
                                        of theirs is running or in doubt (--force after checking it)`,
    options: {
      ...JSON_OPTION,
      by: { type: 'string' },
      force: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
    accepts: oneAddress,
    run(ctx, { positionals, values }) {
      const by = text(values, 'by');
      if (by === undefined || by.trim() === '') throw new CliError('privacy erase needs --by NAME (who asked for it)', 2);
      return privacyErase(ctx.config(), positionals[0]!, {
        by: by.trim(),
        force: values.force === true,
        dryRun: values['dry-run'] === true,
      });
    },
    format: formatErasure,
  } satisfies CliCommand<ErasureReport>,
  {
    name: 'privacy purge',
    usage: 'privacy purge [--dry-run]               remove what RETENTION_* says has expired, in batches',
    options: { ...JSON_OPTION, 'dry-run': { type: 'boolean', default: false } },
    accepts: (rest) => rest.length === 0,
    run: (ctx, { values }) => privacyPurge(ctx.config(), { dryRun: values['dry-run'] === true }),
    format(r, { values }) {
      const line = Object.entries(r.purged)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
      return `${values['dry-run'] ? 'expired' : 'purged'}: ${line || 'nothing (every RETENTION_* is 0)'}`;
    },
  } satisfies CliCommand<PurgeResult>,
  groupUsage('privacy', 'privacy export <address> | privacy erase <address> --by NAME | privacy purge'),
];

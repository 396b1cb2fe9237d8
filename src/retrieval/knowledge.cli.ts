import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import type { Config } from '../platform/config';
import { errorMessage } from '../platform/errors';
import { buildIndex, sharedEmbedder, syncKnowledgeFolder } from './configured-index';
import { buildEmbedder } from './embedder';
import { CliError, connectDatabase } from '../platform/cli-context';
import { onlySubcommand, type CliCommand } from '../platform/cli-command';
import type { Pool } from '../platform/pool.mariadb';
import type { StoredEmails } from './stored-emails.port';

/** The stored emails the index reads (the email feature's message store; cli/main.ts passes it). */
export type StoredEmailsOf = (pool: Pool) => StoredEmails;

/** `email-rag knowledge sync`: indexes new and changed files of KNOWLEDGE_DIR, removes deleted ones. */
export async function knowledgeSync(config: Config, storedEmails: StoredEmailsOf): Promise<string[]> {
  if (!config.context.knowledgeDir) throw new CliError('KNOWLEDGE_DIR is not set: there is no knowledge folder to index', 2);
  const pool = await connectDatabase(config);
  // The passages get their vectors as in the worker (a local embedder runs for this command only).
  const embedding = await buildEmbedder(config).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  try {
    const messages = storedEmails(pool);
    const index = buildIndex(
      config,
      pool,
      messages,
      createMariaDbAuditLog(pool),
      embedding.embedder && sharedEmbedder(config, embedding.embedder),
    );
    const result = await syncKnowledgeFolder(config, pool, index).catch((err: unknown) => {
      throw new CliError(`knowledge sync incomplete: ${errorMessage(err)} (run it again once the index is back)`, 3);
    });
    if (!result) return [];
    return [
      ...result.added.map((p) => `added\t${p}`),
      ...result.updated.map((p) => `updated\t${p}`),
      ...result.removed.map((p) => `removed\t${p}`),
      ...result.skipped.map((p) => `skipped\t${p}`),
      `${result.added.length} added, ${result.updated.length} updated, ${result.removed.length} removed, ${result.unchanged} unchanged (${config.context.knowledgeDir})`,
    ];
  } finally {
    await embedding.stop();
    await pool.end();
  }
}

/** The `knowledge` commands; `storedEmails` comes from the email feature (cli/main.ts passes it). */
export const knowledgeCommands = (storedEmails: StoredEmailsOf): CliCommand[] => [
  {
    name: 'knowledge sync',
    usage: 'knowledge sync                          index new and changed files of KNOWLEDGE_DIR, remove deleted ones',
    accepts: (rest) => rest.length === 0,
    run: (ctx) => knowledgeSync(ctx.config(), storedEmails),
  } satisfies CliCommand<string[]>,
  onlySubcommand('knowledge', 'sync'),
];

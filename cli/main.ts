import { migrate } from '../src/platform/migrate.mariadb';
import { loadConfig } from '../src/config';
import { runWorker } from '../workers/main';
import { ConfigError, errorMessage } from '../src/platform/errors';
import { CliError } from '../src/platform/cli-context';
import { runCli, type CliCommand, type CliProgram } from '../src/platform/cli-command';
import { answerCommand } from '../src/email/answer.cli';
import { createMariaDbMessageStore } from '../src/email/message-store.mariadb';
import { casesCommands } from '../src/cases/cases.cli';
import { autonomyCommands } from '../src/autonomy/autonomy.cli';
import { guidanceCommands } from '../src/guidance/guidance.cli';
import { approvalCommands } from '../src/email/approval.cli';
import { dlqCommands } from '../src/operations/dead-letters.cli';
import { ingestCommand } from '../src/archive-import/ingest.cli';
import { knowledgeCommands } from '../src/retrieval/knowledge.cli';
import { embedderCommand } from '../src/retrieval/embedder.cli';
import { llmCommands } from '../src/drafting/llm-check.cli';
import { metricsCommand } from '../src/operations/metrics.cli';
import { qualityCommand } from '../src/operations/quality.cli';
import { draftsCommand, statusCommand } from '../src/operations/status.cli';
import { mailboxesCommands } from '../src/mailboxes/mailboxes.cli';
import { inboxCommands } from '../src/review-inbox/inbox-users.cli';
import { codecServerCommand } from '../src/operations/codec-server.cli';
import { doctorCommand } from '../src/operations/doctor.cli';
import { auditCommands } from '../src/privacy/audit-access.cli';
import { privacyCommands } from '../src/privacy/privacy.cli';
import { cleanupCommand, pollCommand, scheduleCommands } from '../src/operations/schedules.cli';
import { intakeCommands } from '../src/operations/intake.cli';
import { replayCommands } from '../src/replay/replay.cli';
import { createMariaDbReplayEvidence } from '../src/replay/replay-evidence.mariadb';

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

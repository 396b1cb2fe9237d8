import { migrate } from '../src/platform/migrate.mariadb';
import { loadConfig } from '../src/config';
import { runWorker } from '../workers/main';
import { ConfigError, errorMessage } from '../src/platform/errors';
import { setLogLevel } from '../src/platform/logger';
import { CliError } from '../src/platform/cli-context';
import { runCli, type CliCommand, type CliProgram } from '../src/platform/cli-command';
import { answerCommand, createMariaDbMessageStore, approvalCommands } from '../src/email/index.adapters';
import { casesCommands } from '../src/cases/index.adapters';
import { autonomyCommands } from '../src/autonomy/index.adapters';
import { guidanceCommands } from '../src/guidance/index.adapters';
import {
  dlqCommands,
  metricsCommand,
  qualityCommand,
  draftsCommand,
  statusCommand,
  codecServerCommand,
  doctorCommand,
  cleanupCommand,
  pollCommand,
  scheduleCommands,
  intakeCommands,
} from '../src/operations/index.adapters';
import { ingestCommand } from '../src/archive-import/index.adapters';
import { knowledgeCommands, embedderCommand } from '../src/retrieval/index.adapters';
import { llmCommands } from '../src/drafting/index.adapters';
import { mailboxesCommands } from '../src/mailboxes/index.adapters';
import { inboxCommands } from '../src/review-inbox/index.adapters';
import { auditCommands, privacyCommands } from '../src/privacy/index.adapters';
import { replayCommands, createMariaDbReplayEvidence } from '../src/replay/index.adapters';
import { shadowCommands } from '../src/shadow/index.adapters';

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
    ...shadowCommands,
  ],
  tail: `
configuration comes from the environment (TEMPORAL_ADDRESS, DATABASE_URL, IMAP_*, SMTP_*, LLM_*; see docs/configuration.md)`,
  loadConfig: ({ imap }) => {
    const config = loadConfig(process.env, { imap });
    // Every command's log lines (the worker's, the servers', a CLI command's warnings) at LOG_LEVEL.
    setLogLevel(config.logLevel);
    for (const warning of config.warnings ?? []) process.stderr.write(`email-rag: warning: ${warning}\n`);
    return config;
  },
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

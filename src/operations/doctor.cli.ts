/**
 * `email-rag doctor [--json] [--strict]`: checks a configuration end to end before mail flows and
 * prints one verdict per part, with the fix of each part that is not ok. Wires the checks
 * (doctor-checks.ts) to the adapters; the connections it opens are closed when it ends.
 */
import type { Config } from '../platform/config';
import { createEncryptionCodec } from '../platform/encryption-codec';
import { JSON_OPTION, type CliCommand } from '../platform/cli-command';
import { mailboxesCheck } from '../mailboxes/index.adapters';
import { checkEmbedder } from '../retrieval/index.adapters';
import { readKnowledgeFolder } from '../retrieval';
import { doctorChecks, type DoctorProbes } from './doctor-checks';
import { openDoctorDatabase } from './doctor-database.mariadb';
import { oidcDiscovery, probeCodecServer } from './doctor-endpoints.http';
import { probeLlm } from '../drafting/index.adapters';
import { renderDoctorReport } from './doctor-render';
import { doctorReport, type DoctorReport } from './doctor-report';
import { runChecks } from './doctor-runner';
import { openDoctorTemporal } from './doctor-temporal.temporal';

/** A connection opened on first use and shared by the checks; `close` ends it if it was opened. */
function shared<T>(open: () => Promise<{ value: T; close(): Promise<void> }>) {
  let opened: Promise<{ value: T; close(): Promise<void> }> | undefined;
  return {
    get: async (): Promise<T> => (await (opened ??= open())).value,
    close: async (): Promise<void> => {
      const o = await opened?.catch(() => undefined);
      await o?.close().catch(() => undefined);
    },
  };
}

/** Runs every check of the configuration and adds up the verdicts. */
export async function runDoctor(config: Config, opts: { strict: boolean }): Promise<DoctorReport> {
  const database = shared(async () => {
    const d = await openDoctorDatabase(config.databaseUrl);
    return { value: d.database, close: d.close };
  });
  const temporal = shared(async () => {
    const t = await openDoctorTemporal(config);
    return { value: t.temporal, close: t.close };
  });
  const llm = config.llm;
  const probes: DoctorProbes = {
    database: database.get,
    temporal: temporal.get,
    mailbox: async (id) => (await mailboxesCheck(config, id))[0]?.steps ?? [],
    embedder: () => checkEmbedder(config),
    llm: () => probeLlm({ baseUrl: llm.baseUrl ?? '', apiKey: llm.apiKey, model: llm.model, timeoutMs: llm.timeoutMs }),
    knowledge: (dir) => {
      const found = readKnowledgeFolder(dir);
      return { files: found.files.length, skipped: found.skipped };
    },
    oidcDiscovery: (issuer) => oidcDiscovery(issuer, 10_000),
    codecServer: (url, token) => {
      const keys = config.security.payloadKeys;
      if (!keys) throw new Error('no PAYLOAD_KEYS');
      return probeCodecServer({ url, token, codec: createEncryptionCodec(keys), timeoutMs: 8_000 });
    },
  };
  try {
    return doctorReport(await runChecks(doctorChecks(config, probes)), opts.strict);
  } finally {
    await Promise.all([database.close(), temporal.close()]);
  }
}

export const doctorCommand: CliCommand<DoctorReport> = {
  name: 'doctor',
  usage: `doctor [--json] [--strict]              check the configuration end to end (database, migrations, Temporal,
                                        mailboxes, embedder, LLM, knowledge, encryption, inbox sign-in), sending
                                        nothing; one verdict per part and its fix; exit 1 if a part fails
                                        (with --strict also if one warns)`,
  options: { ...JSON_OPTION, strict: { type: 'boolean', default: false } },
  accepts: (rest) => rest.length === 0,
  run: (ctx, { values }) => runDoctor(ctx.config(), { strict: values.strict === true }),
  format: renderDoctorReport,
  exitCode: (report) => report.exitCode,
};

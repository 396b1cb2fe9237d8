/**
 * `email-rag doctor`'s check list: which parts the configuration has, and what each answer means.
 * This file holds the parts every installation has (database, migrations, Temporal, payload
 * encryption, codec server); doctor-service-checks.ts the mail and model parts. The checks ask
 * their questions through DoctorProbes (wired in doctor.cli.ts), so what a verdict means can be
 * tested without servers.
 */
import type { Payload } from '@temporalio/common';
import type { Config } from '../platform/config';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/contract';
import { createEncryptionCodec } from '../platform/encryption-codec';
import { errorMessage } from '../platform/errors';
import { fail, ok, warn, type DoctorFinding } from './doctor-report';
import type { DoctorCheck } from './doctor-runner';
import { serviceChecks, type ServiceProbes } from './doctor-service-checks';
import type { CodecServerProbe, DoctorDatabase, DoctorTemporal } from './doctor.port';
import { DOCTOR_CHECKS } from './operations.contract';
import { searchAttributesByHand } from './temporal-by-hand';

/** Everything the checks ask; each connection is opened once, on first use, by the caller. */
export interface DoctorProbes extends ServiceProbes {
  database(): Promise<DoctorDatabase>;
  temporal(): Promise<DoctorTemporal>;
  codecServer(url: string, token: string): Promise<CodecServerProbe>;
}

const SECONDS = 1_000;
const MIGRATE = 'email-rag migrate';

/** The database URL without its password, as the table may show it. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** Every check the configuration calls for, in the order the table prints them. */
export function doctorChecks(config: Config, probes: DoctorProbes): DoctorCheck[] {
  return [...platformChecks(config, probes), ...serviceChecks(config, probes), ...payloadChecks(config, probes)];
}

function platformChecks(config: Config, probes: DoctorProbes): DoctorCheck[] {
  const where = redactDatabaseUrl(config.databaseUrl);
  const temporalFix = 'start Temporal, or set TEMPORAL_ADDRESS (TEMPORAL_TLS_* / TEMPORAL_API_KEY for a secured cluster)';
  return [
    {
      check: DOCTOR_CHECKS.database,
      timeoutMs: 10 * SECONDS,
      fix: 'start MariaDB, or set DATABASE_URL to where it runs',
      run: () =>
        probes.database().then(
          (db) => ok(`${where} answers (${db.version})`),
          (err: unknown) => databaseFailure(where, err),
        ),
    },
    {
      check: DOCTOR_CHECKS.migrations,
      timeoutMs: 10 * SECONDS,
      fix: MIGRATE,
      run: () => withDatabase(probes, async (db) => migrationsFinding(await db.migrations())),
    },
    {
      check: DOCTOR_CHECKS.temporalNamespace,
      timeoutMs: 15 * SECONDS,
      fix: temporalFix,
      run: async () => {
        let temporal: DoctorTemporal;
        try {
          temporal = await probes.temporal();
        } catch (err) {
          // The connection's own message ends with the fix in brackets: the fix line says it once.
          return fail(errorMessage(err).replace(/ \(start it, or set TEMPORAL_ADDRESS.*\)$/, ''), temporalFix);
        }
        try {
          const ns = await temporal.namespace();
          const retention =
            ns.retentionDays === null ? '' : `, closed histories kept ${ns.retentionDays} day${ns.retentionDays === 1 ? '' : 's'}`;
          return ok(`${ns.namespace} at ${ns.address}${retention}`);
        } catch (err) {
          // NOT_FOUND (5): the server answers, the namespace is not there.
          if ((err as { code?: number }).code !== 5) throw err;
          const { namespace, address } = config.temporal;
          return fail(
            `namespace ${namespace} does not exist at ${address}`,
            `temporal operator namespace create --namespace ${namespace} (or set TEMPORAL_NAMESPACE)`,
          );
        }
      },
    },
    {
      check: DOCTOR_CHECKS.searchAttributes,
      timeoutMs: 15 * SECONDS,
      fix: temporalFix,
      run: () =>
        withTemporal(probes, async (t) => {
          const { found, operatorApiRefused } = await t.searchAttributes();
          return searchAttributesFinding(found, operatorApiRefused ? { byHandIn: config.temporal.namespace } : {});
        }),
    },
    {
      check: DOCTOR_CHECKS.schedules,
      timeoutMs: 15 * SECONDS,
      fix: temporalFix,
      run: () => withTemporal(probes, async (t) => schedulesFinding(await t.schedules())),
    },
  ];
}

function databaseFailure(where: string, err: unknown): DoctorFinding {
  const message = errorMessage(err).split('\n')[0] ?? '';
  if (/unknown database/i.test(message))
    return fail(`${where}: the database does not exist`, `${MIGRATE} (creates it and applies the migrations)`);
  if (/access denied/i.test(message)) return fail(`${where}: ${message}`, 'correct the user and password in DATABASE_URL');
  return fail(`${where} does not answer: ${message}`, 'start MariaDB, or set DATABASE_URL to where it runs');
}

/**
 * Runs `fn` with a server the part needs (the database, Temporal), or fails the part as not
 * checked when that server does not answer: its own part says why.
 */
async function withServer<T>(
  open: () => Promise<T>,
  server: { name: string; part: string },
  fn: (server: T) => Promise<DoctorFinding>,
): Promise<DoctorFinding> {
  let opened: T;
  try {
    opened = await open();
  } catch {
    return fail(`not checked: ${server.name} does not answer`, `see the part "${server.part}"`);
  }
  return fn(opened);
}

/** Runs `fn` with the database (see withServer). */
export const withDatabase = (probes: Pick<DoctorProbes, 'database'>, fn: (db: DoctorDatabase) => Promise<DoctorFinding>) =>
  withServer(() => probes.database(), { name: 'the database', part: 'database' }, fn);

/** Runs `fn` with Temporal (see withServer). */
const withTemporal = (probes: Pick<DoctorProbes, 'temporal'>, fn: (t: DoctorTemporal) => Promise<DoctorFinding>) =>
  withServer(() => probes.temporal(), { name: 'Temporal', part: 'temporal namespace' }, fn);

export function migrationsFinding(m: Awaited<ReturnType<DoctorDatabase['migrations']>>): DoctorFinding {
  if (m.changed.length > 0)
    return fail(
      `changed after they were applied: ${m.changed.join(', ')}`,
      'restore those files as they were applied and add a new migration for the change',
    );
  if (m.missing.length > 0) return fail(`${m.missing.length} of ${m.known} not applied: ${m.missing.join(', ')}`, MIGRATE);
  if (m.unknown.length > 0)
    return warn(
      `all ${m.known} applied, and ${m.unknown.join(', ')} that this release does not know`,
      'the database was migrated by a newer release: run that release',
    );
  return ok(`all ${m.known} applied (last ${m.applied.at(-1) ?? 'none'})`);
}

/**
 * `byHandIn`: the server refuses the operator API (Temporal Cloud), so `email-rag temporal setup`
 * cannot add them in that namespace: the fix says how to do it by hand.
 */
export function searchAttributesFinding(found: Map<string, string>, opts: { byHandIn?: string } = {}): DoctorFinding {
  const wanted = Object.entries(SEARCH_ATTRIBUTES) as Array<[SearchAttributeName, string]>;
  const missing = wanted.filter(([name]) => !found.has(name)).map(([name]) => name);
  const wrongNames = wanted.filter(([name, type]) => found.has(name) && found.get(name) !== type.toUpperCase()).map(([name]) => name);
  const wrong = wrongNames.map((name) => `${name} is ${found.get(name)}, not ${SEARCH_ATTRIBUTES[name]}`);
  const ns = opts.byHandIn;
  if (missing.length > 0)
    return fail(
      `not registered: ${missing.join(', ')} (email workflows cannot set them)`,
      ns === undefined ? 'email-rag temporal setup' : searchAttributesByHand(ns, missing),
    );
  if (wrong.length > 0)
    return fail(
      `registered with another type: ${wrong.join('; ')}`,
      ns === undefined
        ? 'remove them (temporal operator search-attribute remove) and run email-rag temporal setup'
        : `remove them, then ${searchAttributesByHand(ns, wrongNames)}`,
    );
  return ok(`all ${wanted.length} registered (${wanted.map(([name]) => name).join(', ')})`);
}

export function schedulesFinding(schedules: Awaited<ReturnType<DoctorTemporal['schedules']>>): DoctorFinding {
  const ids = (state: string) => schedules.filter((s) => s.state === state).map((s) => s.id);
  const missing = ids('missing');
  if (missing.length > 0) return fail(`not installed: ${missing.join(', ')}`, 'email-rag schedules install');
  const differs = ids('differs');
  if (differs.length > 0) return warn(`differ from the configuration: ${differs.join(', ')}`, 'email-rag schedules install (updates them)');
  const paused = ids('paused');
  if (paused.length > 0)
    return warn(`paused: ${paused.join(', ')}`, `temporal schedule toggle --unpause --reason doctor --schedule-id ${paused[0]}`);
  return ok(`all ${schedules.length} installed (${schedules.map((s) => s.id).join(', ')})`);
}

function payloadChecks(config: Config, probes: DoctorProbes): DoctorCheck[] {
  const { payloadKeys, codecServer } = config.security;
  const checks: DoctorCheck[] = [
    {
      check: DOCTOR_CHECKS.payloadEncryption,
      timeoutMs: 5 * SECONDS,
      fix: 'check PAYLOAD_KEYS and PAYLOAD_KEY_ID (docs/security.md)',
      run: async () => {
        if (!payloadKeys)
          return warn(
            'off (no PAYLOAD_KEYS): mail histories, drafts and summaries are kept in Temporal in plain text',
            'set PAYLOAD_KEYS=<id>:<base64 of 32 random bytes> (openssl rand -base64 32); see docs/security.md',
          );
        return codecRoundTrip(payloadKeys);
      },
    },
  ];
  if (!codecServer.token) return checks;
  const host = ['0.0.0.0', '::', ''].includes(codecServer.host) ? '127.0.0.1' : codecServer.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${codecServer.port}`;
  checks.push({
    check: DOCTOR_CHECKS.codecServer,
    timeoutMs: 10 * SECONDS,
    fix: 'check the codec server (email-rag codec-server) and its log',
    run: async () => {
      if (!payloadKeys)
        return warn('CODEC_TOKEN is set, but there is nothing to decode (no PAYLOAD_KEYS)', 'set PAYLOAD_KEYS, or unset CODEC_TOKEN');
      return codecServerFinding(url, await probes.codecServer(url, codecServer.token!));
    },
  });
  return checks;
}

async function codecRoundTrip(keys: NonNullable<Config['security']['payloadKeys']>): Promise<DoctorFinding> {
  const codec = createEncryptionCodec(keys);
  const text = '"email-rag doctor round trip"';
  const plain: Payload = { metadata: { encoding: new TextEncoder().encode('json/plain') }, data: new TextEncoder().encode(text) };
  const [sealed] = await codec.encode([plain]);
  const [back] = await codec.decode(sealed ? [sealed] : []);
  const sealedText = Buffer.from(sealed?.data ?? new Uint8Array()).toString('latin1');
  if (sealedText.includes('round trip')) return fail('encoded payloads still hold the plain text', 'check PAYLOAD_KEYS');
  if (new TextDecoder().decode(back?.data ?? new Uint8Array()) !== text)
    return fail('a payload does not decode to what was encoded', 'check PAYLOAD_KEYS and PAYLOAD_KEY_ID');
  return ok(`AES-256-GCM, active key "${keys.activeKeyId}" of ${keys.keys.size}; encode/decode round trip ok`);
}

export function codecServerFinding(url: string, probe: CodecServerProbe): DoctorFinding {
  switch (probe.outcome) {
    case 'round-trip':
      return ok(`${url} decodes and encodes with this configuration's keys (${probe.ms} ms)`);
    case 'refused':
      return probe.status === 401
        ? fail(`${url} refused the token (HTTP 401)`, 'give the codec server and this configuration the same CODEC_TOKEN')
        : fail(`${url} answered HTTP ${probe.status}`, 'read the codec server log');
    case 'mismatch':
      return fail(`${url}: ${probe.message}`, 'give the codec server the same PAYLOAD_KEYS as the worker');
    case 'unreachable':
      return warn(
        `${url} does not answer (${probe.message}): the Web UI and temporal --codec-endpoint show ciphertext`,
        'start it: email-rag codec-server (CODEC_HOST, CODEC_PORT)',
      );
  }
}

/**
 * `email-rag doctor`'s parts for the services mail flows through: each enabled mailbox, the
 * embedder, the LLM, the knowledge folder and the review inbox's sign-in.
 */
import type { Config } from '../platform/config';
import type { EmbedderCheck } from '../retrieval';
import type { ProbeStep } from '../mailboxes';
import { errorMessage } from '../platform/errors';
import { fail, ok, warn, type DoctorFinding } from './doctor-report';
import type { DoctorCheck } from './doctor-runner';
import type { DoctorDatabase, LlmProbe } from './doctor.port';
import { llmFinding } from '../drafting';
import { DOCTOR_CHECKS } from './operations.contract';

export interface ServiceProbes {
  database(): Promise<DoctorDatabase>;
  /** `email-rag mailboxes check ID`'s steps: secrets, IMAP login and folders, SMTP EHLO and login, OAuth2 tokens. */
  mailbox(id: string): Promise<ProbeStep[]>;
  /** `email-rag embedder`'s check. */
  embedder(): Promise<EmbedderCheck>;
  llm(): Promise<LlmProbe>;
  /** The knowledge folder's files (readable Markdown and text), and those skipped with why. */
  knowledge(dir: string): { files: number; skipped: string[] };
  oidcDiscovery(issuer: string): Promise<{ issuer: string }>;
}

const SECONDS = 1_000;

export function serviceChecks(config: Config, probes: ServiceProbes): DoctorCheck[] {
  return [
    ...mailboxChecks(config, probes),
    embedderCheck(config, probes),
    llmCheck(config, probes),
    knowledgeCheck(config, probes),
    inboxCheck(config, probes),
  ];
}

function mailboxChecks(config: Config, probes: ServiceProbes): DoctorCheck[] {
  const enabled = config.mailboxes.filter((m) => m.enabled);
  if (enabled.length === 0)
    return [
      {
        check: DOCTOR_CHECKS.mailbox,
        timeoutMs: SECONDS,
        fix: '',
        run: async () => warn('no enabled mailbox: nothing is polled', 'enable one: email-rag mailboxes enable ID'),
      },
    ];
  return enabled.map((m) => ({
    check: DOCTOR_CHECKS.mailbox,
    target: m.id,
    // Connect and greeting limits of the probes (10 s each), with room for a slow login.
    timeoutMs: 45 * SECONDS,
    fix: `check the server settings of mailbox ${m.id} (email-rag mailboxes list)`,
    run: async () => mailboxFinding(m.id, await probes.mailbox(m.id)),
  }));
}

export function mailboxFinding(id: string, steps: ProbeStep[]): DoctorFinding {
  const failed = steps.filter((s) => !s.ok);
  if (failed.length > 0)
    return fail(failed.map((s) => `${s.step}: ${s.detail}`).join('; '), mailboxFix(id, failed[0]!.step, failed[0]!.detail));
  const detail = (step: string) => steps.find((s) => s.step === step)?.detail;
  const folders = steps.filter((s) => /^imap (sent )?folder /.test(s.step)).map((s) => s.step.replace(/^imap (sent )?folder /, ''));
  const tokens = steps.filter((s) => s.step.endsWith('oauth2 token')).length > 0 ? ', OAuth2 tokens granted' : '';
  const auth = detail('smtp auth');
  return ok(
    `IMAP ${detail('imap login') ?? '?'} (${folders.join(', ')}); SMTP ${detail('smtp connect') ?? '?'}${auth ? `, ${auth}` : ''}${tokens}`,
  );
}

/** One line of what to do about the first failed step of a mailbox. */
function mailboxFix(id: string, step: string, detail: string): string {
  if (step.endsWith('password')) return `set the secret that mailbox ${id}'s ${step} references (email-rag mailboxes list shows which)`;
  if (step.endsWith('oauth2 token')) return `email-rag mailboxes authorize ${id}, or check its app registration (docs/mailboxes.md)`;
  if (step === 'imap login')
    return /login refused/.test(detail)
      ? `correct the IMAP user and password (or OAuth2 sign-in) of mailbox ${id}`
      : `correct the IMAP host, port and TLS of mailbox ${id} (IMAP_HOST, IMAP_PORT, IMAP_TLS or the registry)`;
  if (step.startsWith('imap sent folder'))
    return `create the folder on the server, or set the Sent folder of mailbox ${id} (sentFolder, IMAP_SENT_FOLDER)`;
  if (step.startsWith('imap folder'))
    return `create the folder on the server, or correct the folders of mailbox ${id} (folders, IMAP_FOLDER)`;
  if (step === 'smtp auth') return `correct the SMTP user and password (or OAuth2 sign-in) of mailbox ${id}`;
  if (step === 'smtp connect')
    return `correct the SMTP host, port and TLS of mailbox ${id} (SMTP_HOST, SMTP_PORT, SMTP_TLS or the registry)`;
  return `email-rag mailboxes check ${id}`;
}

function embedderCheck(config: Config, probes: ServiceProbes): DoctorCheck {
  return {
    check: DOCTOR_CHECKS.embedder,
    // EMBEDDER=local starts the service first, which loads its model.
    timeoutMs: (config.embedder.mode === 'local' ? 120 : 30) * SECONDS,
    fix: 'email-rag embedder (docs/configuration.md#embeddings)',
    run: async () => {
      const answer = await probes.embedder();
      let stored: Awaited<ReturnType<DoctorDatabase['storedVectors']>> | string;
      try {
        stored = await (await probes.database()).storedVectors();
      } catch (err) {
        stored = errorMessage(err);
      }
      return embedderFinding(answer, stored);
    },
  };
}

/** `stored`: the vectors in the database per model, or why they could not be read. */
export function embedderFinding(
  c: EmbedderCheck,
  stored: Array<{ model: string; passages: number; dimensions: number }> | string,
): DoctorFinding {
  if (!c.ok)
    return fail(
      `${c.description} does not answer: ${c.error ?? 'unknown error'}`,
      c.mode === 'local'
        ? 'install it (npm run setup), or set EMBEDDER_COMMAND or EMBEDDER=remote'
        : 'start the embeddings server, or correct EMBEDDING_BASE_URL and EMBEDDING_MODEL',
    );
  const others = typeof stored === 'string' ? [] : stored.filter((s) => s.model !== c.model);
  const own = typeof stored === 'string' ? undefined : stored.find((s) => s.model === c.model);
  if (c.mode === 'off') {
    if (others.length === 0) return ok('off (EMBEDDER=off): retrieval by words only');
    return warn(
      `off (EMBEDDER=off), but ${others.map((s) => `${s.passages} passages carry vectors of ${s.model}`).join(', ')}`,
      'retrieval uses words only: set EMBEDDER again to use them',
    );
  }
  const answered = `${c.description}: ${c.dimensions ?? '?'} dimensions, a query and a passage in ${c.ms ?? '?'} ms`;
  if (typeof stored === 'string')
    return warn(`${answered}; stored vectors not compared (${stored})`, 'see the part "database", then run email-rag doctor again');
  if (own && c.dimensions !== undefined && own.dimensions !== c.dimensions)
    return fail(
      `${answered}, but the ${own.passages} stored vectors of ${c.model} have ${own.dimensions}`,
      'the server runs another model than EMBEDDING_MODEL names: set EMBEDDING_MODEL to the model it runs',
    );
  if (others.length > 0)
    return warn(
      `${answered}; ${others.map((s) => `${s.passages} stored vectors were made by ${s.model}`).join(', ')} (retrieval by words for those until they are embedded again)`,
      `if the server runs ${others[0]!.model}, set EMBEDDING_MODEL=${others[0]!.model}; otherwise the re-index schedule embeds them again`,
    );
  return ok(`${answered}; ${own ? `${own.passages} stored vectors of ${c.model}, same dimensions` : 'no stored vectors yet'}`);
}

function llmCheck(config: Config, probes: ServiceProbes): DoctorCheck {
  const { llm } = config;
  return {
    check: DOCTOR_CHECKS.llm,
    timeoutMs: llm.timeoutMs + 5 * SECONDS,
    fix: 'start the LLM server, or correct LLM_BASE_URL',
    run: async () =>
      llm.mode === 'offline'
        ? ok('the offline drafter (no LLM_BASE_URL): replies composed from the retrieved knowledge passages, no model')
        : llmFinding(llm, await probes.llm()),
  };
}

function knowledgeCheck(config: Config, probes: ServiceProbes): DoctorCheck {
  const dir = config.context.knowledgeDir;
  return {
    check: DOCTOR_CHECKS.knowledge,
    timeoutMs: 10 * SECONDS,
    fix: 'check KNOWLEDGE_DIR and the folder’s permissions',
    run: async () => {
      if (!dir)
        return warn(
          "no KNOWLEDGE_DIR: drafts draw only on the correspondent's own mail",
          'set KNOWLEDGE_DIR to a folder of Markdown or text files (FAQ, policies)',
        );
      let found: { files: number; skipped: string[] };
      try {
        found = probes.knowledge(dir);
      } catch (err) {
        return fail(`${dir} cannot be read: ${errorMessage(err)}`, 'check KNOWLEDGE_DIR and the folder’s permissions');
      }
      if (found.files === 0) return warn(`${dir}: no Markdown or text files`, 'add .md or .txt files (FAQ, policies) to the folder');
      const skipped = found.skipped.length > 0 ? `; skipped ${found.skipped.join(', ')}` : '';
      return ok(`${dir}: ${found.files} file${found.files === 1 ? '' : 's'} readable${skipped}`);
    },
  };
}

function inboxCheck(config: Config, probes: ServiceProbes): DoctorCheck {
  const { inbox } = config;
  return {
    check: DOCTOR_CHECKS.inboxSignIn,
    timeoutMs: 15 * SECONDS,
    fix: inbox.oidc ? 'check INBOX_OIDC_ISSUER and the identity provider' : 'email-rag inbox users add NAME --role operator',
    run: async () => {
      if (inbox.oidc) {
        const issuer = inbox.oidc.issuer;
        try {
          await probes.oidcDiscovery(issuer);
        } catch (err) {
          return fail(
            `single sign-on: the issuer's discovery does not answer: ${errorMessage(err)}`,
            'check INBOX_OIDC_ISSUER and that the identity provider runs',
          );
        }
        return ok(`single sign-on with ${issuer} (discovery answers)${inbox.localUsers ? '; local users too' : ''}`);
      }
      let users: { enabled: number; operators: number };
      try {
        users = await (await probes.database()).inboxUsers();
      } catch {
        return fail('not checked: the database does not answer', 'see the part "database"');
      }
      return inboxUsersFinding(inbox.auth, users);
    },
  };
}

export function inboxUsersFinding(auth: Config['inbox']['auth'], users: { enabled: number; operators: number }): DoctorFinding {
  const add = 'email-rag inbox users add NAME --role operator';
  if (auth === 'header') {
    const line = `a reverse proxy names the user (INBOX_AUTH=header); ${users.operators} operator${users.operators === 1 ? '' : 's'} listed`;
    return users.operators > 0 ? ok(line) : warn(`${line}: everyone the proxy lets in is a reviewer`, add);
  }
  if (users.enabled === 0) return fail('nobody can sign in to the review inbox: no user', add);
  const line = `${users.enabled} user${users.enabled === 1 ? '' : 's'}, ${users.operators} operator${users.operators === 1 ? '' : 's'}`;
  return users.operators > 0 ? ok(line) : warn(`${line}: nobody can re-queue dead letters in the inbox`, add);
}

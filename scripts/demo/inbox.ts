import { randomBytes } from 'node:crypto';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { startInbox, type RunningInbox } from '../../src/review-inbox/server';
import type { Config } from '../../src/config';
import type { Cleanup } from './step';

export interface DemoLogin {
  user: string;
  password: string;
}

/** The demo's review inbox operator, with a fresh password: made before `email-rag doctor` looks for one. */
export async function addDemoOperator(config: Config): Promise<DemoLogin> {
  const login = { user: 'demo', password: randomBytes(9).toString('base64url') };
  await inboxUsersAdd(config, login.user, 'operator', login.password);
  return login;
}

/** The review inbox for `npm run demo -- --keep`, signed in to as the demo operator. */
export async function startDemoInbox(config: Config, login: DemoLogin, cleanup: Cleanup): Promise<{ url: string } & DemoLogin> {
  let inbox: RunningInbox;
  // It runs in the demo's own process, whose terminal is the demo's report: no access line per click.
  const quiet: Config = { ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel };
  try {
    inbox = await startInbox(quiet);
  } catch (err) {
    // INBOX_PORT taken (another inbox?): any free port will do for a demo.
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    inbox = await startInbox({ ...quiet, inbox: { ...quiet.inbox, port: 0 } });
  }
  cleanup.add('review inbox', () => inbox.close());
  return { url: inbox.url, ...login };
}

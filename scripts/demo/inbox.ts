import { randomBytes } from 'node:crypto';
import { inboxUsersAdd } from '../../src/review-inbox/inbox-users.cli';
import { startInbox, type RunningInbox } from '../../src/review-inbox/server';
import type { Config } from '../../src/config';
import type { Cleanup } from './step';

/** The review inbox for `npm run demo -- --keep`, with a demo operator and a fresh password. */
export async function startDemoInbox(config: Config, cleanup: Cleanup): Promise<{ url: string; user: string; password: string }> {
  const user = 'demo';
  const password = randomBytes(9).toString('base64url');
  await inboxUsersAdd(config, user, 'operator', password);
  let inbox: RunningInbox;
  try {
    inbox = await startInbox(config);
  } catch (err) {
    // INBOX_PORT taken (another inbox?): any free port will do for a demo.
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    inbox = await startInbox({ ...config, inbox: { ...config.inbox, port: 0 } });
  }
  cleanup.add('review inbox', () => inbox.close());
  return { url: inbox.url, user, password };
}

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ManagedChild } from '../../test/support/services/child-process';
import { freePort } from '../../test/support/services/ports';
import { shellQuote, startEmailRagService } from './cli';
import { isFree } from './services';
import { relative, waitFor } from './step';

/**
 * The demo's payload encryption: a fresh AES-256-GCM key and codec token for each run, so the
 * history of the demo's dev server holds ciphertext like a real deployment's. They are written to
 * `codec.env` in the demo's state folder (owner-only, outside version control) for another shell,
 * and never printed.
 */
export interface DemoCodec {
  /** PAYLOAD_KEYS, PAYLOAD_KEY_ID and CODEC_TOKEN, for the demo's own processes. */
  secrets: Record<string, string>;
  /** The codec server's address, e.g. http://127.0.0.1:8234. */
  url: string;
  port: number;
  /** What the Web UI is given (`--ui-codec-endpoint`): it cannot send a header, so the token is in the path. */
  uiEndpoint: string;
  token: string;
  envFile: string;
}

const KEY_ID = 'demo';

export async function demoCodec(dir: string): Promise<DemoCodec> {
  // The port a codec server takes by default (CODEC_PORT) when it is free, like the Web UI's 8233.
  const port = (await isFree(8234)) ? 8234 : await freePort();
  const token = randomBytes(24).toString('hex');
  const secrets = { PAYLOAD_KEYS: `${KEY_ID}:${randomBytes(32).toString('base64')}`, PAYLOAD_KEY_ID: KEY_ID, CODEC_TOKEN: token };
  const envFile = path.join(dir, 'codec.env');
  fs.rmSync(envFile, { force: true });
  const lines = [
    '# The demo stack payload key and codec token, made fresh by each `npm run demo`.',
    `# Load into a shell with: . ${relative(envFile)}`,
    ...Object.entries(secrets).map(([k, v]) => `export ${k}=${shellQuote([v])}`),
  ];
  fs.writeFileSync(envFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  const url = `http://127.0.0.1:${port}`;
  return { secrets, url, port, uiEndpoint: `${url}/ui/${token}`, token, envFile };
}

/** `email-rag codec-server` as a child process; resolves once it answers /health. */
export async function startDemoCodecServer(env: NodeJS.ProcessEnv, codec: DemoCodec, logFile: string): Promise<ManagedChild> {
  const healthy = () =>
    fetch(`${codec.url}/health`)
      .then((r) => r.ok)
      .catch(() => false);
  return startEmailRagService(['codec-server'], env, logFile, (abortIf) =>
    waitFor('the codec server to answer', healthy, { timeoutMs: 60_000, abortIf }),
  );
}

/** The temporal CLI flags that decode (and encode) payloads through the demo's codec server. */
export function codecFlags(codec: Pick<DemoCodec, 'url'>, auth: string): string[] {
  return ['--codec-endpoint', codec.url, '--codec-auth', auth];
}

/** As printed: the token comes from the shell (`. .local/demo/codec.env`), never from the screen. */
export const PRINTED_CODEC_AUTH = '"Bearer $CODEC_TOKEN"';

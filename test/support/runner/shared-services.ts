/**
 * Servers the suite runner starts once for all test files. Only servers that keep no state a test
 * could see are shared: the default embedder answers embedding requests and nothing else. Each file
 * still gets its own database, Dovecot, SMTP listener, LLM double and Temporal dev server (their
 * state — mail, workflows, visibility, received messages — is what the tests assert on).
 */
import { SHARED_EMBEDDER_ENV, startEmbedderServer } from '../services/embedder';

export interface SharedServices {
  /** What the test files' environment gains. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startSharedServices(dir: string): Promise<SharedServices> {
  // Two inference threads: several files embed at once through it.
  const embedder = await startEmbedderServer({ dir: dir, threads: 2 });
  return {
    env: { [SHARED_EMBEDDER_ENV]: String(embedder.port) },
    stop: () => embedder.stop(),
  };
}

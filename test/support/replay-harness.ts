/**
 * What the replay tests share: a run prepared from the fixture archive (test/fixtures/replay/)
 * in a throwaway database, and the replay's activities with the real embedder, the fixture's
 * knowledge folder and the offline drafter, which counts its drafts per pair.
 */
import path from 'node:path';
import type { DraftRequest, Drafter } from '../../src/drafting/drafter.port';
import { createOfflineDrafter } from '../../src/drafting/drafter.offline';
import { createMariaDbAuditLog } from '../../src/platform/audit-log.mariadb';
import type { Pool } from '../../src/platform/pool.mariadb';
import { createReplayActivities, type ReplayDeps } from '../../src/replay/replay.activities';
import { prepareReplay } from '../../src/replay/replay-run';
import { createMariaDbReplayStore } from '../../src/replay/replay-store.mariadb';
import { createOpenAiEmbedder } from '../../src/retrieval/embedder.openai';
import { readKnowledgeFolder } from '../../src/retrieval/knowledge-folder.file';
import type { EmbedderServer } from './services/embedder';

export const REPLAY_FIXTURE = path.join(__dirname, '..', 'fixtures', 'replay');
export const REPLAY_TEAM = ['support@example.test', 'anna@example.test'];

/** The offline drafter, counting each pair's drafts (its request's emailId names the run and pair). */
export function countingDrafter(): Drafter & { drafts: Map<string, number>; requests: DraftRequest[] } {
  const inner = createOfflineDrafter();
  const drafts = new Map<string, number>();
  const requests: DraftRequest[] = [];
  return {
    name: inner.name,
    drafts,
    requests,
    async draft(req) {
      drafts.set(req.emailId, (drafts.get(req.emailId) ?? 0) + 1);
      requests.push(req);
      return inner.draft(req);
    },
  };
}

export function replayDeps(pool: Pool, embedderServer: EmbedderServer, drafter: Drafter): ReplayDeps {
  return {
    store: createMariaDbReplayStore(pool),
    drafter,
    embedder: createOpenAiEmbedder({
      baseUrl: embedderServer.baseUrl,
      apiKey: 'not-needed',
      model: embedderServer.model,
      timeoutMs: 30_000,
      inputType: embedderServer.inputType,
    }),
    mailboxLanguage: () => 'de',
    knowledgeFiles: () => readKnowledgeFolder(path.join(REPLAY_FIXTURE, 'knowledge')).files,
    ranking: { method: 'hybrid', minCosine: 0.27 },
  };
}

export function replayActivities(deps: ReplayDeps) {
  return createReplayActivities(deps);
}

export function prepareFixtureRun(pool: Pool, opts: { limit?: number } = {}) {
  return prepareReplay(
    { store: createMariaDbReplayStore(pool), audit: createMariaDbAuditLog(pool) },
    {
      archive: path.join(REPLAY_FIXTURE, 'support.mbox'),
      mailboxId: 'default',
      team: REPLAY_TEAM,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      maxBytes: 10_000_000,
      by: 'tester',
    },
  );
}

import type { KnowledgeFile, KnowledgeLedger } from './knowledge.port';
import type { VectorIndex } from './vector-index.port';
import { splitPassages } from './passages';

export interface KnowledgeSyncResult {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: number;
}

/** The source id of a knowledge file; its passages are `<this>#<n>`. */
export function knowledgeFileId(path: string): string {
  return `knowledge:${path}`;
}

/**
 * Brings the indexes in line with the knowledge folder: new and changed files are (re-)indexed,
 * removed ones removed, unchanged ones left alone, so running it twice does nothing the second
 * time. The ledger is written after the index, so a failure is simply retried by the next sync.
 */
export async function syncKnowledge(deps: {
  files: KnowledgeFile[];
  ledger: KnowledgeLedger;
  index: Pick<VectorIndex, 'index' | 'remove'>;
}): Promise<KnowledgeSyncResult> {
  const known = await deps.ledger.list();
  const result: KnowledgeSyncResult = { added: [], updated: [], removed: [], unchanged: 0 };
  for (const file of deps.files) {
    const before = known.get(file.path);
    known.delete(file.path);
    if (before === file.sha256) {
      result.unchanged += 1;
      continue;
    }
    const id = knowledgeFileId(file.path);
    await deps.index.index({
      emailId: id,
      threadId: id,
      account: '',
      mailbox: '',
      direction: 'knowledge',
      fromAddress: '',
      subject: file.path,
      text: file.text,
      date: null,
    });
    await deps.ledger.record(file.path, file.sha256, splitPassages(`${file.path}\n\n${file.text}`).length);
    (before === undefined ? result.added : result.updated).push(file.path);
  }
  for (const path of known.keys()) {
    await deps.index.remove?.(knowledgeFileId(path));
    await deps.ledger.forget(path);
    result.removed.push(path);
  }
  return result;
}

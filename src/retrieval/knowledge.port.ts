/** One file of the knowledge folder (KNOWLEDGE_DIR): FAQ, policies, product notes. */
export interface KnowledgeFile {
  /** Relative to the folder, with `/` separators: part of the source id `knowledge:<path>#<n>`. */
  path: string;
  text: string;
  sha256: string;
}

/** What was indexed from the knowledge folder last time, so a sync only touches what changed. */
export interface KnowledgeLedger {
  /** Path → sha256 of every file indexed so far. */
  list(): Promise<Map<string, string>>;
  record(path: string, sha256: string, passages: number): Promise<void>;
  forget(path: string): Promise<void>;
}

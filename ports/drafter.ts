export interface DraftContextItem {
  /** Source id (email id, or `knowledge:<relative path>#<n>`) so a reader can trace what the draft was built from. */
  sourceId: string;
  kind: 'thread' | 'similar' | 'sender' | 'knowledge' | 'own_reply';
  text: string;
  /** A heading for the passage, e.g. a knowledge file's title. */
  title?: string;
}

export interface DraftRequest {
  emailId: string;
  from: { name: string; address: string };
  subject: string;
  text: string;
  context: DraftContextItem[];
}

export interface DraftResult {
  subject: string;
  body: string;
  language: string;
  category: string;
  prioritySuggestion: 'critical' | 'high' | 'normal' | 'low';
  confidence: number;
  usedSourceIds: string[];
  model: string;
  promptVersion: string;
  /** Notes for the reviewer, e.g. `json_repaired`, `json_invalid_defaults`, `offline_drafter`. */
  flags: string[];
}

/** Writes a reply draft from an email and retrieved context. */
export interface Drafter {
  readonly name: string;
  draft(request: DraftRequest): Promise<DraftResult>;
}

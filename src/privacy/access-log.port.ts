import type { AccessAction } from './privacy.contract';

/** One look at personal data: who, what, when. */
export interface AccessEntry {
  actor: string;
  action: AccessAction;
  emailId?: string | null;
  /** The salted hash of the address an export or erasure was about. */
  subjectHash?: string | null;
  /** What was looked at beyond the email (a source id, the export's folder); never mail text. */
  detail?: string;
}

export interface AccessRow extends Required<AccessEntry> {
  id: number;
  at: Date;
}

export interface AccessFilter {
  actor?: string;
  emailId?: string;
  since?: Date;
  limit?: number;
}

/** Who opened which email, who exported or erased whose data. */
export interface AccessLog {
  record(entry: AccessEntry): Promise<void>;
  /** Several looks at once (a page that shows several emails), in one statement. */
  recordMany(entries: AccessEntry[]): Promise<void>;
  list(filter: AccessFilter): Promise<AccessRow[]>;
}

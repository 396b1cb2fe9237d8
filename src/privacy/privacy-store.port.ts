import type { SubjectIds } from './privacy-subject';

export interface ErasureProgress {
  ids: SubjectIds;
  /** Steps done, with their counts. */
  done: Record<string, number>;
  finishedAt: Date | null;
  /** A named person forced it past a send in doubt: a re-run does not ask again. */
  forced: boolean;
}

/** The relational store's side of export and erasure (MariaDB). */
export interface PrivacyStore {
  /** The installation's secret salt for address hashes. */
  salt(): Promise<string>;
  find(address: string): Promise<SubjectIds>;
  /** Sends of these emails that are `sending` or `in_doubt`. */
  unsettledSends(emailIds: string[]): Promise<Array<{ emailId: string; status: string }>>;
  progress(hash: string): Promise<ErasureProgress | null>;
  begin(hash: string, by: string, forced: boolean, ids: SubjectIds): Promise<void>;
  step(hash: string, step: string, count: number): Promise<void>;
  finish(hash: string): Promise<void>;
  /** Removes or anonymises their rows; counts per table. Idempotent. */
  erase(address: string, hash: string, ids: SubjectIds): Promise<Record<string, number>>;
}

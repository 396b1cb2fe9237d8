/**
 * What `email-rag doctor`'s checks ask of the servers, one capability per kind of server; the
 * adapters (`doctor-*.mariadb.ts`, `doctor-*.temporal.ts`, `doctor-*.http.ts`; the LLM's is the drafting feature's `llm-probe.openai.ts`)
 * implement them, doctor.cli.ts wires them, and the checks turn the answers into verdicts.
 */
import type { MigrationStatus } from '../platform/migrate.mariadb';

/** The database the configuration names, once it answered. */
export interface DoctorDatabase {
  /** The server's version string. */
  version: string;
  migrations(): Promise<MigrationStatus>;
  /** Passages with a stored vector, per model that made them, with one vector's dimensions. */
  storedVectors(): Promise<Array<{ model: string; passages: number; dimensions: number }>>;
  /** Review inbox users that are not disabled, and how many of them are operators. */
  inboxUsers(): Promise<{ enabled: number; operators: number }>;
}

export type DoctorScheduleState = 'installed' | 'paused' | 'differs' | 'missing';

/** The Temporal namespace of the configuration, once the server answered. */
export interface DoctorTemporal {
  /** Where it answered and the namespace's retention; throws when the namespace does not exist. */
  namespace(): Promise<{ address: string; namespace: string; retentionDays: number | null }>;
  /**
   * Registered custom search attributes: name → type word as the SDK's enum spells it (`KEYWORD`,
   * `BOOL`, `INT`); `operatorApiRefused` when the server refuses its operator API (Temporal Cloud),
   * so the product's attributes were asked one by one and someone adds missing ones by hand.
   */
  searchAttributes(): Promise<{ found: Map<string, string>; operatorApiRefused: boolean }>;
  /** Every schedule the configuration wants, as installed. */
  schedules(): Promise<Array<{ id: string; state: DoctorScheduleState }>>;
}

/** How the LLM endpoint took one small structured-output request (asked by the drafting feature's probe). */
export type { LlmProbe } from '../drafting';

/** How the codec server took an encode and a decode. */
export type CodecServerProbe =
  | { outcome: 'round-trip'; ms: number }
  | { outcome: 'mismatch'; message: string }
  | { outcome: 'refused'; status: number }
  | { outcome: 'unreachable'; message: string };

import type { KnownPersonalData } from './known-personal-data';

/** What the store knows about the person a stored email (or our reply) was written to or by. */
export interface PersonalDataLookup {
  /**
   * Per source id (an email id, or our sent reply `<email id>:draft:<n>:sent`): the names,
   * addresses, numbers and signature lines of that correspondent, from the email and its thread.
   */
  knownFor(sourceIds: string[]): Promise<Map<string, KnownPersonalData>>;
}

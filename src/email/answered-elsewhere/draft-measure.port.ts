import type { DraftRecord } from '../email-stores.port';
import type { OutsideReply } from './outside-replies.port';

/**
 * Measures a withdrawn draft against the reply a person sent instead (shadow evidence): how close
 * the assistant came to what the team really wrote. The shadow feature implements it
 * (src/shadow/); the email's stand-down calls it. Idempotent per email.
 */
export interface DraftMeasure {
  measure(input: { emailId: string; mailboxId: string; mode: string; draft: DraftRecord; reply: OutsideReply }): Promise<void>;
}

/**
 * Whether a draft may be sent without a person now: the one judgement the verdict makes before
 * the grace period and the automatic send makes again at its end. Reads, never writes.
 */
import { DRAFT_FLAGS, DRAFT_STATUS, type DraftClaimStore } from '../drafting';
import { STATUS, type DraftStore, type MessageStore } from '../email';
import { policyLabel, type AutonomyPolicy, type MailboxAutonomy } from './autonomy-policy';
import { figuresOf, judgeCategory } from './category-judgement';
import { NO_TEXT_BY_NATURE, type AttachmentStore, type StoredAttachment } from '../attachments';
import { DEFAULT_MAILBOX_ID } from '../mailboxes';
import { findNeverAutomatic } from './never-automatic';
import type { AutonomyFigures, AutonomyStore } from './autonomy.port';
import { groundingReasons } from './grounding-reason';

export interface AssessmentDeps {
  autonomy: AutonomyStore;
  messages: Pick<MessageStore, 'getEmail' | 'sendSnapshot'>;
  drafts: Pick<DraftStore, 'get'>;
  /** The mail's stored attachments and their text; absent: a mail with attachments is never sent alone. */
  attachments?: Pick<AttachmentStore, 'list' | 'texts'>;
  /** The checked claims of each draft; absent: the draft's `unsupported_claims` flag alone tells. */
  draftClaims?: Pick<DraftClaimStore, 'list'>;
  /** The policy of the configuration (AUTONOMY_FILE); null: autonomy is off everywhere. */
  policy: AutonomyPolicy | null;
}

export interface Assessment {
  send: boolean;
  /** `name@version` of the policy, null when the mailbox has none. */
  policy: string | null;
  entry: MailboxAutonomy | null;
  mailboxId: string;
  /** Whether the draft's category is one the mailbox lists (only then is a refusal audited). */
  listed: boolean;
  reasons: string[];
  figures: AutonomyFigures | null;
  /** Whether the category's record clears its bars (whatever else holds this draft back). */
  qualifies?: boolean;
}

/** Offline drafts are templates of retrieved passages, never judged good enough to go alone. */
const OFFLINE_DRAFTER = 'offline';

export async function assessDraft(deps: AssessmentDeps, emailId: string, draftId: string): Promise<Assessment> {
  const email = await deps.messages.getEmail(emailId);
  const mailboxId = email?.mailboxId || DEFAULT_MAILBOX_ID;
  const entry = deps.policy?.mailboxes[mailboxId] ?? null;
  const none = { send: false, entry: null, mailboxId, listed: false, figures: null };
  if (!email) return { ...none, policy: null, reasons: [`email ${emailId} is not stored`] };
  if (!deps.policy || !entry) return { ...none, policy: null, reasons: [`mailbox ${mailboxId} has no autonomy policy`] };
  const policy = policyLabel(deps.policy);
  const draft = await deps.drafts.get(draftId);
  if (!draft || draft.emailId !== emailId) return { ...none, policy, entry, reasons: [`draft ${draftId} is not a draft of ${emailId}`] };
  const reasons: string[] = [];
  const category = draft.category ?? 'unknown';
  const listed = entry.categories.includes(category);
  let figures: AutonomyFigures | null = null;
  let qualifies = false;
  if (!(await deps.autonomy.switchState()).on) reasons.push('autonomy is switched off');
  if (!listed) reasons.push(`category "${category}" is not listed for automatic sending in mailbox ${mailboxId}`);
  else {
    const j = await judgeCategory(deps.autonomy, mailboxId, category, entry);
    figures = figuresOf(category, j, entry);
    qualifies = j.judged.qualifies;
    if (!j.judged.qualifies) reasons.push(`category "${category}" is below its bar: ${j.judged.reason}`);
  }
  if (email.status !== STATUS.awaitingApproval) reasons.push(`the email is ${email.status}, not awaiting approval`);
  if (draft.status !== DRAFT_STATUS.awaitingApproval) reasons.push(`the draft is ${draft.status}, not awaiting approval`);
  const { maxDraftVersion } = await deps.messages.sendSnapshot(emailId);
  if (maxDraftVersion > draft.version) reasons.push(`draft ${draft.version} is not the current one (draft ${maxDraftVersion} exists)`);
  if (draft.flags.length > 0) reasons.push(`the draft is flagged: ${draft.flags.join(', ')}`);
  if (draft.drafter === OFFLINE_DRAFTER || draft.flags.includes(DRAFT_FLAGS.offlineDrafter))
    reasons.push('the draft was written by the offline drafter');
  if (draft.body.trim() === '') reasons.push('the draft is empty');
  reasons.push(...(await groundingReasons(deps, draft)));
  if (!(draft.confidence >= entry.minConfidence))
    reasons.push(`the draft's confidence ${draft.confidence} is below ${entry.minConfidence}`);
  const attached = await attachmentsOf(deps, emailId, email.attachments.length);
  reasons.push(...attached.reasons);
  for (const [where, text] of [
    ['mail', `${email.subject}\n${email.text}`],
    ['draft', `${draft.subject}\n${draft.body}`],
    ['attachment text', attached.text],
  ] as const) {
    const found = findNeverAutomatic(text, entry.neverAutomatic);
    if (found.length > 0) reasons.push(`the ${where} is about ${found.map((f) => `${f.topic} ("${f.match}")`).join(', ')}`);
  }
  const stoppedBy = await deps.autonomy.stoppedBy(draftId);
  if (stoppedBy) reasons.push(`the automatic send was stopped by ${stoppedBy}`);
  return { send: reasons.length === 0, policy, entry, mailboxId, listed, reasons, figures, qualifies };
}

/**
 * What the customer attached that no draft could have taken into account: files not stored, not
 * read (encrypted, damaged, past a limit, not read yet) and pictures sent as attachments (a
 * screenshot: no text is read from images). Inline images (a signature's logo) do not count.
 * Also returns the text read from the attachments, checked for never-automatic topics like the mail.
 */
async function attachmentsOf(
  deps: Pick<AssessmentDeps, 'attachments'>,
  emailId: string,
  parsed: number,
): Promise<{ reasons: string[]; text: string }> {
  if (parsed === 0) return { reasons: [], text: '' };
  if (!deps.attachments) return { reasons: [`the mail has ${parsed} attachment(s) this worker does not read`], text: '' };
  const stored = await deps.attachments.list(emailId);
  const reasons: string[] = [];
  if (stored.length < parsed) reasons.push(`${parsed - stored.length} of the mail's ${parsed} attachments were not stored`);
  const unread = stored.filter((a) => !readOrNoText(a));
  if (unread.length > 0) {
    const names = unread
      .slice(0, 5)
      .map(
        (a) =>
          `${a.filename ?? `part ${a.partIndex + 1}`} (${a.textState === 'extracted' ? 'read in part' : (a.textState ?? 'not read yet')})`,
      );
    reasons.push(
      `the mail has attachments the assistant could not read: ${names.join(', ')}${unread.length > 5 ? ` and ${unread.length - 5} more` : ''}`,
    );
  }
  const pages = await deps.attachments.texts(emailId);
  return { reasons, text: pages.map((p) => p.text).join('\n') };
}

/** Read, or a file with no text by nature that is not a picture the customer meant to show. */
function readOrNoText(a: StoredAttachment): boolean {
  // Read only in part (pages or characters past a limit): the draft did not see all of it.
  if (a.textState === 'extracted') return a.textNote === null;
  if (a.textState !== 'skipped' || !NO_TEXT_BY_NATURE.test(a.textNote ?? '')) return false;
  const picture = (a.detectedType ?? '').startsWith('image/');
  return !picture || (a.disposition === 'inline' && a.contentId !== null);
}

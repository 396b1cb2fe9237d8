/**
 * The draft step's injection check: the mail's parts as the guard reads them (its own words,
 * quoted history, attachment names and text, what the HTML hides, the context), and the audit rows
 * a reviewer and an operator need — what was found, and that the meaning went unchecked when the
 * embedder was down. It only flags; the scoping of the context is the protection.
 */
import { type DraftContextItem, type InjectionFinding, type IntentDetectorSettings, describeFindings, guardMail } from '../../drafting';
import type { EmailRecord } from '../email-stores.port';
import type { EmailDeps } from '../email-deps';
import { hiddenHtmlText } from '../intake/mail-parser';
import { EMAIL_AUDIT_EVENTS } from '../email.contract';

export async function injectionCheck(
  deps: Pick<EmailDeps, 'audit' | 'messages' | 'embedder'>,
  email: EmailRecord,
  context: DraftContextItem[],
  settings: IntentDetectorSettings,
  at: { cid: string; version: number },
): Promise<InjectionFinding[]> {
  const lines = email.text.split(/\r?\n/);
  const guard = await guardMail(
    {
      subject: email.subject,
      body: lines.filter((l) => !l.trimStart().startsWith('>')).join('\n'),
      quoted: lines.filter((l) => l.trimStart().startsWith('>')).join('\n'),
      // The names and the text read from the files: an instruction hidden in a PDF is still an instruction.
      attachments: [
        ...email.attachments.map((a) => a.filename ?? ''),
        ...context.filter((c) => c.kind === 'attachment').map((c) => c.text),
      ].join('\n'),
      context: context.map((c) => c.text).join('\n'),
      hiddenHtml: email.hasHtml ? await hiddenHtmlText(await deps.messages.getRaw(email.id)) : undefined,
    },
    { embedder: deps.embedder, settings },
  );
  const { findings } = guard;
  if (findings.length > 0) {
    // The model never acts on these (no tools, fixed recipient), but the reviewer must know.
    await deps.audit.record({
      emailId: email.id,
      correlationId: at.cid,
      eventType: EMAIL_AUDIT_EVENTS.injectionSuspected,
      errorClass: null,
      message: `possible prompt injection: ${describeFindings(findings)}${guard.intentCheck === 'skipped' ? ' (intent check skipped: embedder unavailable)' : ''}`,
      details: { findings, intentCheck: guard.intentCheck },
      eventKey: `${at.cid}:injection:${at.version}`,
    });
  }
  if (guard.intentCheck === 'skipped') {
    // The words were still checked; without the embedder only the meaning went unchecked.
    await deps.audit.record({
      emailId: email.id,
      correlationId: at.cid,
      eventType: EMAIL_AUDIT_EVENTS.injectionCheckDegraded,
      errorClass: 'dependency',
      message: `injection guard: intent check skipped, heuristic only: ${guard.skippedBecause ?? 'embedder unavailable'}`,
      eventKey: `${at.cid}:${EMAIL_AUDIT_EVENTS.injectionCheckDegraded}:${at.version}`,
    });
  }
  return findings;
}

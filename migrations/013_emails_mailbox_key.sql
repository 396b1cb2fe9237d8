-- Several mailboxes: two accounts' folders can share a name, a UIDVALIDITY and UIDs (Dovecot
-- derives UIDVALIDITY from the creation time), so an IMAP email is one message of one mailbox.
-- One statement: the table is never without a unique key on its IMAP coordinates.
ALTER TABLE emails
  ADD UNIQUE KEY IF NOT EXISTS uq_emails_mailbox_imap (mailbox_id, mailbox, uid_validity, uid),
  DROP INDEX IF EXISTS uq_emails_imap;

/** A draft's status words are the email's at the same moments (two tables, one vocabulary). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRAFT_STATUS } from '../../src/drafting/drafting.contract';
import { STATUS } from '../../src/email/email-status';

test("a draft's status words are the email's at the same moments", () => {
  assert.equal(DRAFT_STATUS.awaitingApproval, STATUS.awaitingApproval);
  assert.equal(DRAFT_STATUS.approved, STATUS.approved);
  assert.equal(DRAFT_STATUS.rejected, STATUS.rejected);
  assert.equal(DRAFT_STATUS.sent, STATUS.sent);
});

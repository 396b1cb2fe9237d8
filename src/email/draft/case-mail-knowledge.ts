/**
 * What our knowledge says to each other open mail of the case: when one reply is to answer
 * several mails, each of them needs its own answer in the context, found for its own question
 * (a second mail about a new delivery address finds nothing in passages retrieved for a late
 * parcel). Only knowledge: the customer's own mail is in the context already.
 */
import type { DraftContextItem, IndexableEmail, VectorIndex } from '../../retrieval';

/** Passages per other open mail: the best two or three answer it, or nothing does. */
const PER_MAIL = 3;

export async function knowledgeForCaseMails(
  index: Pick<VectorIndex, 'retrieve'>,
  answered: IndexableEmail,
  caseMails: readonly DraftContextItem[],
): Promise<DraftContextItem[]> {
  const found: DraftContextItem[] = [];
  for (const mail of caseMails.filter((c) => c.openInCase)) {
    const items = await index.retrieve({ ...answered, emailId: mail.sourceId, subject: mail.title ?? '', text: mail.text }, PER_MAIL);
    for (const item of items.filter((i) => i.kind === 'knowledge')) found.push({ ...item, forEmailId: mail.sourceId });
  }
  return found;
}

import type { IndexableEmail } from '../../src/retrieval/vector-index.port';

/** A knowledge file's text as the index takes it (the knowledge sync's shape): no mailbox, no sender. */
export const knowledgeEntry = (file: string, text: string): IndexableEmail => ({
  emailId: `knowledge:${file}`,
  threadId: `knowledge:${file}`,
  account: '',
  mailbox: '',
  direction: 'knowledge',
  fromAddress: '',
  subject: file,
  text,
  date: null,
});

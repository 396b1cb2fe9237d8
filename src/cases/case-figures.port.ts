import type { Priority } from '../triage';

/** What the metrics read about case deadlines. */
export interface CaseFigures {
  /** Open cases whose customer still waits and whose due time has passed, per mailbox and priority (groups without any are absent). */
  overdue(): Promise<Array<{ mailboxId: string; priority: Priority; count: number }>>;
  /** Missed deadlines recorded so far (`case_breached` in the case history), per mailbox: a running total. */
  breaches(): Promise<Array<{ mailboxId: string; count: number }>>;
}

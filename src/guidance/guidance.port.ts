/**
 * Guidance texts, versioned per scope (migration 030). A scope is the installation (both parts
 * null), a mailbox, a category, or a mailbox's category.
 */
export interface GuidanceScope {
  mailboxId: string | null;
  category: string | null;
}

export interface GuidanceVersion {
  /** Unique over every scope: what a draft names (`g<id>`). */
  id: number;
  scope: GuidanceScope;
  /** 1, 2, … within its scope; the highest is the scope's current text. */
  version: number;
  text: string;
  author: string;
  createdAt: Date;
}

/** Reads the current guidance of the scopes a draft may fall under. */
export interface GuidanceSource {
  /** The current version of each of these scopes that has one (in no particular order). */
  currentOf(scopes: readonly GuidanceScope[]): Promise<GuidanceVersion[]>;
  /**
   * The current version of every scope a draft of this mailbox may fall under, categories
   * included: one read per draft, from which the draft step sees whether any category guidance
   * exists (only then is its category guessed before drafting) and picks its scopes.
   */
  currentForMailbox(mailboxId: string): Promise<GuidanceVersion[]>;
}

/** Writes and lists guidance (the CLI and the review inbox). */
export interface GuidanceStore extends GuidanceSource {
  /**
   * Adds a version to the scope, numbered one above its newest; never changes an older one. The
   * same text as the current version adds nothing (`created: false`, the current version).
   */
  add(scope: GuidanceScope, text: string, author: string): Promise<{ created: boolean; version: GuidanceVersion }>;
  /** The current version of every scope that has one. */
  listCurrent(): Promise<GuidanceVersion[]>;
  /** Every version of one scope, newest first. */
  history(scope: GuidanceScope): Promise<GuidanceVersion[]>;
  /** The versions with these ids (those still stored). */
  byIds(ids: readonly number[]): Promise<GuidanceVersion[]>;
}

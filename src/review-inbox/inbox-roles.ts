/** The roles of the review inbox, and how a single sign-on's claims map onto them. */
export type InboxRole = 'reviewer' | 'operator';

const RANK: Record<InboxRole, number> = { reviewer: 1, operator: 2 };

/**
 * The role a provider's claims give: the values of `claim` (a list, or one string with values
 * separated by spaces or commas) looked up in `map` (or, without a map, `reviewer`/`operator` as
 * they are); the highest wins. null: no mapped value, so no access.
 */
export function roleFromClaims(claims: Record<string, unknown>, claim: string, map: Record<string, InboxRole>): InboxRole | null {
  const raw = claims[claim];
  const values = Array.isArray(raw)
    ? raw.filter((v): v is string => typeof v === 'string')
    : typeof raw === 'string'
      ? raw.split(/[\s,]+/)
      : [];
  const direct = Object.keys(map).length === 0;
  let best: InboxRole | null = null;
  for (const v of values) {
    const role = direct ? (v === 'reviewer' || v === 'operator' ? v : undefined) : map[v];
    if (role && (!best || RANK[role] > RANK[best])) best = role;
  }
  return best;
}

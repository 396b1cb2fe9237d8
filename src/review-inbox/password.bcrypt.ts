/** Password hashes of inbox users: bcrypt (cost 12), the only place that knows the library. */
import bcrypt from 'bcryptjs';

export const BCRYPT_ROUNDS = 12;

/**
 * Compared against when the name is unknown, so a wrong name costs as long as a wrong password:
 * the same cost as real hashes (a cheaper one would tell by its speed which names exist). Made on
 * first use, not at import.
 */
let dummyHash: Promise<string> | undefined;
const dummy = (): Promise<string> => (dummyHash ??= bcrypt.hash('not a password of anyone', BCRYPT_ROUNDS));

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_ROUNDS);
}

/** True when `password` matches `hash`; with no hash it still spends the time and says false. */
export async function verifyPassword(password: string, hash: string | undefined): Promise<boolean> {
  const ok = await bcrypt.compare(password, hash ?? (await dummy()));
  return ok && hash !== undefined;
}

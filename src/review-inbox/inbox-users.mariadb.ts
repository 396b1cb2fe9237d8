import { query, type Pool } from '../platform/pool.mariadb';

export type InboxRole = 'reviewer' | 'operator';
export const INBOX_ROLES: readonly InboxRole[] = ['reviewer', 'operator'];

export interface InboxUser {
  name: string;
  passwordHash: string;
  role: InboxRole;
  createdAt: Date;
  disabledAt: Date | null;
}

interface Row {
  name: string;
  password_hash: string;
  role: InboxRole;
  created_at: Date;
  disabled_at: Date | null;
}

/** The people who may decide in the review inbox (table inbox_users). */
export function createMariaDbInboxUsers(pool: Pool) {
  return {
    async find(name: string): Promise<InboxUser | null> {
      const rows = await query<Row[]>(pool, 'reading an inbox user', 'SELECT * FROM inbox_users WHERE name = ?', [name]);
      const r = rows[0];
      return r ? { name: r.name, passwordHash: r.password_hash, role: r.role, createdAt: r.created_at, disabledAt: r.disabled_at } : null;
    },

    /** Adds a user, or sets a new password and role for an existing one (and enables it again). */
    async upsert(name: string, passwordHash: string, role: InboxRole): Promise<'added' | 'updated'> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'saving an inbox user',
        `INSERT INTO inbox_users (name, password_hash, role) VALUES (?, ?, ?)
         ON DUPLICATE KEY UPDATE password_hash = VALUES(password_hash), role = VALUES(role), disabled_at = NULL`,
        [name, passwordHash, role],
      );
      return r.affectedRows === 1 ? 'added' : 'updated';
    },

    /** A new password for an existing user (role and disabled state stay); false when there is none. */
    async setPassword(name: string, passwordHash: string): Promise<boolean> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'setting the password of an inbox user',
        'UPDATE inbox_users SET password_hash = ? WHERE name = ?',
        [passwordHash, name],
      );
      return r.affectedRows > 0;
    },

    async disable(name: string): Promise<boolean> {
      const r = await query<{ affectedRows: number }>(
        pool,
        'disabling an inbox user',
        'UPDATE inbox_users SET disabled_at = CURRENT_TIMESTAMP(3) WHERE name = ? AND disabled_at IS NULL',
        [name],
      );
      return r.affectedRows > 0;
    },
  };
}
export type InboxUsers = ReturnType<typeof createMariaDbInboxUsers>;

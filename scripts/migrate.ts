import { migrate } from '../src/platform/migrate.mariadb';
import { errorMessage } from '../src/platform/errors';

/** Creates the database and applies migrations; one line of output either way. */
async function main(): Promise<void> {
  const url = process.env.DATABASE_URL?.trim() || 'mariadb://root@127.0.0.1:3306/email_rag';
  const redacted = url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  try {
    const result = await migrate(url);
    const what = result.applied.length > 0 ? `applied ${result.applied.join(', ')}` : 'schema up to date';
    console.log(`database ${result.database}${result.created ? ' created,' : ''} ${what}`);
  } catch (err) {
    console.error(`cannot migrate ${redacted}: ${errorMessage(err)}`);
    console.error('check that MariaDB runs and DATABASE_URL names a user that may create databases');
    process.exitCode = 1;
  }
}

void main();

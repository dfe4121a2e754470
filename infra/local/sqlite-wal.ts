import { join } from 'node:path';

/** The file DynamoDB Local keeps every table in when started with `-sharedDb -dbPath <dir>`. */
const SHARED_DB_FILE = 'shared-local-instance.db';

/**
 * Puts DynamoDB Local's database file (created empty if missing: the emulator lays out its own tables in it) in
 * SQLite's write-ahead-log journal mode, which SQLite keeps in the file itself, so the emulator opens it that way.
 * In the default rollback-journal mode every COMMIT syncs the journal and the database (several fsyncs); in WAL
 * mode one sync of the log. Committed data is as durable as before, through a process kill and an OS crash alike
 * (the emulator's connection keeps SQLite's FULL sync). Must run while no emulator has the file open.
 */
export async function useWriteAheadLog(dbPath: string): Promise<void> {
  const { DatabaseSync } = await importSqlite();
  const db = new DatabaseSync(join(dbPath, SHARED_DB_FILE));
  try {
    db.exec('PRAGMA journal_mode=WAL');
  } finally {
    db.close();
  }
}

/** `node:sqlite` without its one-time "experimental" warning on the platform's console. */
async function importSqlite(): Promise<typeof import('node:sqlite')> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('node:sqlite');
  } finally {
    process.emitWarning = emitWarning;
  }
}

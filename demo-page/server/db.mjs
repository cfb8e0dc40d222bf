// The permits database as the demo agent sees it: opened read-only, one SELECT at a time, rows capped.
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';

export const DEFAULT_DB_PATH = fileURLToPath(new URL('../data/permits.sqlite', import.meta.url));
export const MAX_ROWS = 200;

// Read-only at the connection, not by convention: even a statement that slips past the checks
// below fails with SQLITE_READONLY. fileMustExist stops SQLite from creating an empty database
// when the path is wrong, which would otherwise surface later as "no such table".
export function openPermitsDb(path = DEFAULT_DB_PATH) {
  return new Database(path, { readonly: true, fileMustExist: true });
}

// Skips leading whitespace and comments so "-- note\nSELECT ..." is judged by its first keyword.
function firstKeyword(sql) {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i])) i++;
    if (sql.startsWith('--', i)) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else break;
  }
  return (/^[A-Za-z]+/.exec(sql.slice(i)) ?? [''])[0].toUpperCase();
}

// Returns why `sql` may not run, or null. Three gates, because each catches what the others miss:
// the first keyword (rejects PRAGMA, ATTACH, DELETE ... with a clear message), better-sqlite3's
// single-statement rule at prepare time ("SELECT 1; DROP TABLE x"), and SQLite's own verdict on
// the compiled statement (stmt.readonly), which catches "WITH x AS (...) DELETE FROM ...".
export function prepareSelect(db, sql) {
  if (typeof sql !== 'string' || sql.trim() === '') return { error: 'query must be a non-empty SQL string' };
  const keyword = firstKeyword(sql);
  if (keyword !== 'SELECT' && keyword !== 'WITH') {
    return { error: `only a single SELECT (or WITH ... SELECT) statement is allowed; got ${keyword || 'no keyword'}` };
  }
  let stmt;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    if (/more than one statement/i.test(err.message)) {
      return { error: 'only a single SELECT statement is allowed; the query contains several statements' };
    }
    return { error: `SQL error: ${err.message}` };
  }
  if (!stmt.readonly || !stmt.reader) return { error: 'only read-only SELECT statements are allowed' };
  return { stmt };
}

export function runSelect(db, sql, maxRows = MAX_ROWS) {
  const { stmt, error } = prepareSelect(db, sql);
  if (error) return { error };
  try {
    const columns = stmt.columns().map((c) => c.name);
    const rows = [];
    let truncated = false;
    // iterate() rather than all(): stops reading at the cap instead of materialising every row.
    for (const row of stmt.iterate()) {
      if (rows.length === maxRows) {
        truncated = true;
        break;
      }
      rows.push(row);
    }
    return { columns, rows, rowCount: rows.length, truncated };
  } catch (err) {
    return { error: `SQL error: ${err.message}` };
  }
}

export function describeSchema(db) {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map(({ name, sql }) => ({
      name,
      definition: sql, // the CREATE TABLE text, whose comments say what the units are
      rowCount: db.prepare(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).get().n,
      columns: db
        .prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(?)')
        .all(name)
        .map((c) => ({ name: c.name, type: c.type, nullable: !c.notnull, primaryKey: c.pk > 0 })),
    }));
  return {
    dialect: 'SQLite',
    notes: [
      'issued_date is ISO text (YYYY-MM-DD): use substr(issued_date, 1, 7) for the month.',
      'valuation is the declared project value in US dollars.',
      `execute_query returns at most ${MAX_ROWS} rows; aggregate in SQL.`,
    ],
    tables,
  };
}

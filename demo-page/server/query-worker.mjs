// Child process that owns the read-only database connection and answers schema and query requests.
//
// SQLite calls are synchronous: a model-written cross join or runaway recursive CTE could block the
// event loop (and every other open stream) indefinitely. A worker thread is not enough, because
// Worker.terminate() cannot interrupt native code; a child process can always be killed.
import { describeSchema, openPermitsDb, runSelect } from './db.mjs';

const db = openPermitsDb(process.argv[2]);
// The parent starts a query's clock only now: starting a process is not the query's time.
process.send({ ready: true });

process.on('message', ({ id, op, sql, maxRows }) => {
  try {
    const result = op === 'schema' ? describeSchema(db) : runSelect(db, sql, maxRows);
    process.send({ id, result });
  } catch (err) {
    process.send({ id, result: { error: String(err?.message ?? err) } });
  }
});
// The parent went away: nothing will read our answers.
process.on('disconnect', () => process.exit(0));

// The shim's deadlines (js-shim/src/timers.js): many deadlines on one timer.
// Each fires once, in due order, unless cancelled; a sooner one re-arms the
// timer; one that throws does not stop the rest; and in node nothing but a
// pending deadline keeps the process alive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
// timers.js is internal (not exported by the package): its unit tests read src/.
import { schedule } from '../../js-shim/src/timers.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TIMERS = new URL('../../js-shim/src/timers.js', import.meta.url).href;

test('deadlines fire once each, in due order; cancelled ones never fire', async () => {
  const fired = [];
  schedule(60, () => fired.push('60'));
  const cancel = schedule(30, () => fired.push('cancelled'));
  schedule(10, () => fired.push('10')); // sooner than the timer is armed for: re-armed
  schedule(0, () => fired.push('0'));
  cancel();
  await sleep(120);
  assert.deepEqual(fired, ['0', '10', '60']);
});

// A deadline's error is uncaught, as a setTimeout callback's would be: in a
// child process, so the test runner does not take it for its own.
const run = (body) =>
  spawnSync(process.execPath, ['--input-type=module', '-e', `import { schedule } from '${TIMERS}';\n${body}`], {
    encoding: 'utf8',
    timeout: 20_000,
  });

test('a deadline that throws does not stop the others, and its error is still thrown', () => {
  // (The child reports uncaught errors and goes on, as a browser tab does.)
  const r = run(`process.on('uncaughtException', (e) => console.log('uncaught', e.message));
    schedule(5, () => { throw new Error('boom'); }); schedule(5, () => console.log('after'));`);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n').sort(), ['after', 'uncaught boom']);
});

test('cancelling from inside a firing deadline, and scheduling again, both work', async () => {
  const fired = [];
  let cancelLater;
  schedule(5, () => {
    fired.push('first');
    cancelLater();
    schedule(5, () => fired.push('rescheduled'));
  });
  cancelLater = schedule(5, () => fired.push('cancelled'));
  // (Timers fire in the order they are due: 'cancelled' would come before 'rescheduled'.)
  for (let waited = 0; !fired.includes('rescheduled'); waited += 10) {
    assert.ok(waited < 5000, `rescheduled fired within 5 s (fired: ${fired})`);
    await sleep(10);
  }
  assert.deepEqual(fired, ['first', 'rescheduled']);
});

test('node: a pending deadline keeps the process alive; a cancelled one does not', () => {
  const waits = run(`schedule(200, () => console.log('fired'));`);
  assert.equal(waits.status, 0, waits.stderr);
  assert.equal(waits.stdout.trim(), 'fired');

  const t0 = Date.now();
  const leaves = run(`const cancel = schedule(60_000, () => console.log('fired')); schedule(30, () => cancel());`);
  assert.equal(leaves.status, 0, leaves.stderr);
  assert.equal(leaves.stdout, '');
  assert.ok(Date.now() - t0 < 15_000, 'the process ended without waiting for the cancelled minute');
});

// Deadlines for the whole page (or node process), on one timer. Most deadlines
// never fire: a handler's timeout is cancelled when the handler answers, a
// stream's idle watch when the stream ends. So `schedule` only notes the time,
// and the one timer stays armed for the earliest deadline, re-armed when a
// sooner one comes or when it fires; arming and clearing a timer per deadline
// cost more than the work they guard (a tool round arms two).
//
// Delays over 2^31-1 ms (about 24.8 days), which browsers and node run after
// 1 ms, are waited out in steps of that size.
const MAX_DELAY = 2 ** 31 - 1;
// The deadlines' clock, monotonic: a wall clock set back would hold every
// deadline back with it.
export const now = () => performance.now();

const pending = new Set(); // {due, fire}
let timer = null;
let armedFor = Infinity;

function arm(due) {
  if (timer !== null) clearTimeout(timer);
  armedFor = due;
  timer = setTimeout(tick, Math.min(MAX_DELAY, Math.max(0, due - now())));
}

// Node: an armed timer with nothing pending must not keep the process alive
// (browsers' timers are numbers, and nothing waits on them).
function hold(on) {
  if (timer !== null && typeof timer === 'object') {
    if (on) timer.ref?.();
    else timer.unref?.();
  }
}

function tick() {
  timer = null;
  armedFor = Infinity;
  const at = now();
  const due = [];
  for (const entry of pending) if (entry.due <= at) due.push(entry);
  // In due order, not in the order they were scheduled: a late tick finds several due.
  due.sort((a, b) => a.due - b.due);
  for (const entry of due) {
    if (!pending.delete(entry)) continue; // cancelled by one that fired before it
    try {
      entry.fire();
    } catch (error) {
      // Uncaught, as a timer callback's error is; the other deadlines still fire.
      queueMicrotask(() => {
        throw error;
      });
    }
  }
  let next = Infinity;
  for (const entry of pending) if (entry.due < next) next = entry.due;
  if (next < armedFor) arm(next); // (one a deadline scheduled as it fired may have armed it already)
}

/** Calls `fire` once, `ms` from now (a number of milliseconds; anything else is 0). Returns the cancel function. */
export function schedule(ms, fire) {
  const entry = { due: now() + Math.max(0, Number(ms) || 0), fire };
  pending.add(entry);
  if (entry.due < armedFor) arm(entry.due);
  else hold(true);
  return () => {
    if (pending.delete(entry) && pending.size === 0) hold(false);
  };
}

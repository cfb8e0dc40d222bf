// setTimeout for any delay: browsers and node run a delay over 2^31-1 ms (about
// 24.8 days) after 1 ms, so longer waits are chained. Returns the cancel function.
const MAX_DELAY = 2 ** 31 - 1;

export function schedule(ms, fire) {
  let handle;
  let cancelled = false;
  const due = Date.now() + Math.max(0, Number(ms) || 0);
  const arm = () => {
    const left = due - Date.now();
    if (left > MAX_DELAY) {
      handle = setTimeout(arm, MAX_DELAY);
    } else {
      handle = setTimeout(() => {
        if (!cancelled) fire();
      }, Math.max(0, left));
    }
  };
  arm();
  return () => {
    cancelled = true;
    clearTimeout(handle);
  };
}

// The one seeded generator of the tests, the benches and the demo's data script:
// mulberry32, small and fast, and the same sequence on every platform (integer
// operations only), so a failing case or a generated file can be made again
// from its seed.

/** A function returning floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

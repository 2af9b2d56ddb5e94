package concbench.lib;

/**
 * The catalogue's portable inputs, identical in every language (src/concbench/lcg.py): the LCG x =
 * (x * 1103515245 + 12345) mod 2^31 from seed 42; draw k is the (k+1)-th value, mapped to [lo, hi]
 * as lo + x mod (hi - lo + 1). Case i of a workload uses draw i.
 */
public final class Lcg {
  private Lcg() {}

  /** The first {@code count} draws in [lo, hi]. */
  public static long[] draws(int count, long lo, long hi) {
    long[] draws = new long[count];
    long x = 42;
    for (int k = 0; k < count; k++) {
      x = (x * 1103515245 + 12345) % (1L << 31);
      draws[k] = lo + x % (hi - lo + 1);
    }
    return draws;
  }
}

//! The catalogue's portable inputs, identical in every language
//! (src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31
//! from seed 42; draw k is the (k+1)-th value, mapped to [lo, hi] as
//! lo + x mod (hi - lo + 1). Case i of a workload uses draw i.

/// The first `count` draws in [lo, hi].
pub fn draws(count: usize, lo: i64, hi: i64) -> Vec<i64> {
    let mut x: i64 = 42;
    (0..count)
        .map(|_| {
            x = (x * 1103515245 + 12345) % (1 << 31);
            lo + x % (hi - lo + 1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// The draws are the catalogue's (src/concbench/lcg.py's, for the same
    /// arguments), so that the harness's expected values hold.
    #[test]
    fn draws_are_the_catalogues() {
        assert_eq!(
            super::draws(5, -1_000_000, 1_000_000),
            [-504598, -698294, -323747, -326028, -904719]
        );
        assert_eq!(super::draws(5, 0, 10), [0, 0, 10, 7, 8]);
        assert_eq!(super::draws(100, -1_000_000, 1_000_000).iter().sum::<i64>(), 4318181);
    }
}

package lib

// Draws are the catalogue's portable inputs, identical in every language
// (src/concbench/lcg.py): the LCG x = (x * 1103515245 + 12345) mod 2^31 from
// seed 42; draw k is the (k+1)-th value, mapped to [lo, hi] as
// lo + x mod (hi - lo + 1). Case i of a workload uses draw i.
func Draws(count, lo, hi int64) []int64 {
	draws := make([]int64, count)
	x := int64(42)
	for i := range draws {
		x = (x*1103515245 + 12345) % (1 << 31)
		draws[i] = lo + x%(hi-lo+1)
	}
	return draws
}

// Mere waiting: await readable (workloads/await-readable.toml): no Go mechanism can
// express it, and runtime.toml says why: the netpoller is edge-triggered, so
// a goroutine cannot await readiness again of a descriptor it never drains.
// The file exists so that the cells show that reason, not "not implemented".
package workloads

import "concbench/go/kit"

func init() { kit.Register("await-readable", map[string]kit.Mechanism{}) }

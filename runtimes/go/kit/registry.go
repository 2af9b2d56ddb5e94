package kit

import "sort"

// The registry: each workload file (workloads/<id>.go) registers its
// mechanisms in its init, so that adding a workload touches its file only.
var registry = map[string]map[string]Mechanism{}

// Register records workload id's mechanisms, by name.
func Register(id string, mechanisms map[string]Mechanism) {
	if _, twice := registry[id]; twice {
		panic("workload " + id + " registered twice")
	}
	registry[id] = mechanisms
}

// implemented is the protocol's list answer: every workload with its mechanisms.
func implemented() map[string][]string {
	out := map[string][]string{}
	for id, mechanisms := range registry {
		for name := range mechanisms {
			out[id] = append(out[id], name)
		}
		sort.Strings(out[id])
	}
	return out
}

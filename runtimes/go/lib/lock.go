package lib

import "sync"

// Lock takes the mutex: a TryLock first, and only if that fails the Lock
// that waits; 1 if the lock was held (an acquisition that contended).
func Lock(mutex *sync.Mutex) int64 {
	if mutex.TryLock() {
		return 0
	}
	mutex.Lock()
	return 1
}

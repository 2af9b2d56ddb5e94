package lib

// Room is the buffer a channel gets for a queue of `capacity` items: a
// channel always has a bound, so for capacity 0 (no bound) it gets room for
// everything that will be sent on it (`all`), and no send waits.
func Room(capacity, all int64) int64 {
	if capacity == 0 {
		return all
	}
	return capacity
}

// Send sends value; 1 if the channel was full, so that the send waited.
func Send[T any](channel chan<- T, value T) int64 {
	select {
	case channel <- value:
		return 0
	default:
		channel <- value
		return 1
	}
}

// Receive takes a value; 1 beside it if the channel was empty, so that the
// take waited. ok is false once the channel is closed and drained.
func Receive[T any](channel <-chan T) (value T, waited int64, ok bool) {
	select {
	case value, ok = <-channel:
		return value, 0, ok
	default:
		value, ok = <-channel
		return value, 1, ok
	}
}

// Total is the sum of counts made by units one each.
func Total(counts []int64) int64 {
	var sum int64
	for _, n := range counts {
		sum += n
	}
	return sum
}

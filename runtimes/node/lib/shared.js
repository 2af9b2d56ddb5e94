// What worker threads share: a lock and a bounded queue in a
// SharedArrayBuffer, built on Atomics (the standard library has neither).
// Both are plain objects over Int32Array and Float64Array views, so that
// they cross to a worker in its workerData (the views are cloned, the memory
// is shared) and are rebuilt there with the same constructor.
"use strict";

/** A lock in one Int32 slot: 0 free, 1 held, 2 held with waiters (the futex
 *  mutex of Drepper's "Futexes Are Tricky"); a waiter sleeps in Atomics.wait. */
class SharedLock {
  constructor(cells = new Int32Array(new SharedArrayBuffer(4)), index = 0) {
    this.cells = cells;
    this.index = index;
  }

  /** Takes the lock if it is free: false if it is held (the caller then calls lock()). */
  tryLock() {
    return Atomics.compareExchange(this.cells, this.index, 0, 1) === 0;
  }

  lock() {
    const { cells, index } = this;
    let seen = Atomics.compareExchange(cells, index, 0, 1);
    if (seen === 0) return;
    if (seen !== 2) seen = Atomics.exchange(cells, index, 2);
    while (seen !== 0) {
      Atomics.wait(cells, index, 2);
      seen = Atomics.exchange(cells, index, 2);
    }
  }

  unlock() {
    const { cells, index } = this;
    if (Atomics.sub(cells, index, 1) !== 1) {
      Atomics.store(cells, index, 0);
      Atomics.notify(cells, index, 1);
    }
  }
}

// The queue's Int32 cells: its lock, where the next pop and push go, the
// items it holds, and two sequence numbers that a pop waits on while it is
// empty and a push while it is full.
const LOCK = 0;
const HEAD = 1;
const TAIL = 2;
const COUNT = 3;
const PUSHED = 4;
const POPPED = 5;

/** A queue of at most `capacity` numbers, blocking: push into a full one and
 *  pop from an empty one sleep in Atomics.wait until a pop or a push wakes them. */
class SharedQueue {
  constructor(capacity, views) {
    this.cells = views?.cells ?? new Int32Array(new SharedArrayBuffer(6 * 4));
    this.slots = views?.slots ?? new Float64Array(new SharedArrayBuffer(capacity * 8));
    this.lock = new SharedLock(this.cells, LOCK);
  }

  /** What a worker needs to rebuild the queue: new SharedQueue(0, queue.views). */
  get views() {
    return { cells: this.cells, slots: this.slots };
  }

  /** Pushes if there is room: false if the queue is full (the caller then calls push). */
  tryPush(item) {
    return this.#pushing(item, false);
  }

  push(item) {
    this.#pushing(item, true);
  }

  /** Pops an item if there is one, else undefined (the caller then calls pop). */
  tryPop() {
    return this.#popping(false);
  }

  pop() {
    return this.#popping(true);
  }

  #pushing(item, wait) {
    const { cells, slots } = this;
    this.lock.lock();
    while (cells[COUNT] === slots.length) {
      if (!wait) return (this.lock.unlock(), false);
      this.#await(POPPED);
    }
    slots[cells[TAIL]] = item;
    cells[TAIL] = (cells[TAIL] + 1) % slots.length;
    cells[COUNT]++;
    this.#signal(PUSHED);
    this.lock.unlock();
    return true;
  }

  #popping(wait) {
    const { cells, slots } = this;
    this.lock.lock();
    while (cells[COUNT] === 0) {
      if (!wait) return (this.lock.unlock(), undefined);
      this.#await(PUSHED);
    }
    const item = slots[cells[HEAD]];
    cells[HEAD] = (cells[HEAD] + 1) % slots.length;
    cells[COUNT]--;
    this.#signal(POPPED);
    this.lock.unlock();
    return item;
  }

  /** Sleeps, the lock released, until the sequence number moves from what it was. */
  #await(sequence) {
    const seen = Atomics.load(this.cells, sequence);
    this.lock.unlock();
    Atomics.wait(this.cells, sequence, seen);
    this.lock.lock();
  }

  #signal(sequence) {
    Atomics.add(this.cells, sequence, 1);
    Atomics.notify(this.cells, sequence, 1); // a push lets one pop go on, a pop one push
  }
}

module.exports = { SharedLock, SharedQueue };

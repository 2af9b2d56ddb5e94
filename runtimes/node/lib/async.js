// What the standard library lacks for units on one event loop: a first-in
// first-out list, a mutex and a bounded queue of promises, each a few lines
// (Node has none of its own). Units that wait are resumed in the order they
// came, and a waiter is handed what it waited for (the lock, an item, room)
// by the unit that releases it, so that no third unit overtakes it.
"use strict";

/** A first-in first-out list: an array read from an index, compacted as it empties. */
class Fifo {
  #items = [];
  #head = 0;

  get length() {
    return this.#items.length - this.#head;
  }

  push(item) {
    this.#items.push(item);
  }

  shift() {
    const item = this.#items[this.#head++];
    if (this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}

/** A lock for async functions: lock() resolves once the caller holds it. */
class Mutex {
  #held = false;
  #waiters = new Fifo();

  /** Takes the lock if it is free: false if it is held (the caller then awaits lock()). */
  tryLock() {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  lock() {
    if (this.tryLock()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  unlock() {
    if (this.#waiters.length) this.#waiters.shift()();
    else this.#held = false;
  }
}

/** What tryPop returns from an empty queue. */
const EMPTY = Symbol("empty");

/** A queue of at most `capacity` items (0: no bound): a push into a full one
 *  waits for room, a pop from an empty one for an item. */
class Queue {
  #items = new Fifo();
  #takers = new Fifo();
  #putters = new Fifo(); // [item, resolve] of pushes waiting for room

  constructor(capacity) {
    this.capacity = capacity;
  }

  /** Pushes if there is room: false if the queue is full (the caller then awaits push). */
  tryPush(item) {
    if (this.#takers.length) this.#takers.shift()(item);
    else if (this.capacity === 0 || this.#items.length < this.capacity) this.#items.push(item);
    else return false;
    return true;
  }

  push(item) {
    if (this.tryPush(item)) return Promise.resolve();
    return new Promise((resolve) => this.#putters.push([item, resolve]));
  }

  /** Pops an item if there is one, else EMPTY (the caller then awaits pop). */
  tryPop() {
    if (!this.#items.length) return EMPTY;
    const item = this.#items.shift();
    if (this.#putters.length) {
      const [waiting, resume] = this.#putters.shift();
      this.#items.push(waiting);
      resume();
    }
    return item;
  }

  pop() {
    const item = this.tryPop();
    if (item !== EMPTY) return Promise.resolve(item);
    return new Promise((resolve) => this.#takers.push(resolve));
  }
}

module.exports = { Fifo, Mutex, Queue, EMPTY };

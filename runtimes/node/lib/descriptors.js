// A descriptor's ends on the unit's event loop: net.Socket handles (libuv's,
// on Node; Deno's), or on Bun its own. Bun's net.Socket on a descriptor is no
// event-loop handle: it writes with fs.writeSync, which fails with EAGAIN on
// a full non-blocking pipe. Bun.file(fd).writer() is a FileSink, whose flush
// returns a promise while the kernel's buffer is full, and
// Bun.file(fd).stream() a ReadableStream, both on Bun's event loop.
//
// Deno's net.Socket cannot take a descriptor that its node:fs opened in the
// same isolate (EEXIST: both would own it), so that a FIFO the caller opened
// is no socket for its own units; Deno's own files are (fifoFileEnds):
// Deno.open at both ends, then the file's ReadableStream and WritableStream,
// whose reads and writes Deno makes on its blocking thread pool.
"use strict";

const fs = require("node:fs");
const net = require("node:net");
const { ENGINE } = require("../kit.js");

/** Bun's end for writing a descriptor: each write goes to the kernel at once, as a net.Socket's does. */
class DescriptorSink {
  constructor(fd) {
    this.fd = fd;
    this.sink = Bun.file(fd).writer();
  }

  /** A promise while the kernel's buffer is full, as a net.Socket's write returning false. */
  write(bytes) {
    this.sink.write(bytes);
    const flushed = this.sink.flush();
    return flushed instanceof Promise ? flushed : undefined;
  }

  /** Flushes and closes the descriptor (a FileSink leaves one it was given open). */
  async end() {
    await this.sink.end();
    fs.closeSync(this.fd);
  }
}

/** Deno's end for writing a file it opened, through the file's WritableStream. */
class FileWriter {
  constructor(file) {
    this.writer = file.writable.getWriter();
  }

  /** A promise while the stream's queue is full, as a net.Socket's write returning false. */
  write(bytes) {
    this.writer.write(bytes);
    return this.writer.desiredSize > 0 ? undefined : this.writer.ready;
  }

  /** Flushes and closes the file. */
  end() {
    return this.writer.close();
  }
}

/** On Deno, the [reader, writer] ends of the FIFO at `fifo`: opening an end
 *  waits for the other (Deno.open has no O_NONBLOCK), so both open at once. */
async function fifoFileEnds(fifo) {
  const [r, w] = await Promise.all([Deno.open(fifo, { read: true }), Deno.open(fifo, { write: true })]);
  fs.unlinkSync(fifo);
  return [r.readable, new FileWriter(w)];
}

/** Bun's end for reading a descriptor: its chunks, then the descriptor closed
 *  (a stream leaves one it was given open), at its end or when the reader stops. */
async function* descriptorChunks(fd) {
  try {
    yield* Bun.file(fd).stream();
  } finally {
    fs.closeSync(fd);
  }
}

/** A descriptor's end for reading: an async iterable of its chunks. */
const readEnd = (fd) => (ENGINE === "bun" ? descriptorChunks(fd) : new net.Socket({ fd, readable: true, writable: false }));

/** A descriptor's end for writing: a net.Socket, or on Bun a DescriptorSink. */
const writeEnd = (fd) => (ENGINE === "bun" ? new DescriptorSink(fd) : new net.Socket({ fd, readable: false, writable: true }));

module.exports = { fifoFileEnds, readEnd, writeEnd };

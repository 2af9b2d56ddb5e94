// Mutex - I/O-bound (workloads/mutex-io.toml): each group has a mutex, a
// file (made before the timing) and the file's end; each of its `workers`
// units, `iterations` times: lock, read the end, write `size` bytes at that
// offset (one positioned write), store the end plus `size`, unlock. The
// result is the files' sizes, taken after the clock stops.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { Mutex } = require("../lib/async.js");
const { SharedLock } = require("../lib/shared.js");
const { startWorker } = require("../lib/workers.js");
const { ENGINE } = require("../kit.js");

/** The groups' files, made before the timing; their sizes, and removing them, after. */
function groupFiles(run) {
  return Array.from({ length: run.params.groups }, (_, g) => {
    const file = path.join(run.scratch, `mutex-io-${g}`);
    fs.writeFileSync(file, "");
    return file;
  });
}

function sizesRemoved(files) {
  let bytes = 0;
  for (const file of files) {
    bytes += fs.statSync(file).size;
    fs.unlinkSync(file);
  }
  return bytes;
}

/** Async functions and an async mutex (lib/async.js); a write is
 *  FileHandle.write at a position, a pwrite on libuv's threadpool that the
 *  unit awaits holding the lock, so the others find it held. */
async function promise(run) {
  const { workers, iterations, size } = run.params;
  const files = groupFiles(run);
  const block = Buffer.alloc(size, "x");
  const units = run.units;
  const work = async (group) => {
    units.start();
    let contended = 0;
    for (let i = 0; i < iterations; i++) {
      if (!group.mutex.tryLock()) {
        contended++;
        await group.mutex.lock();
      }
      const end = group.end;
      await group.handle.write(block, 0, size, end);
      group.end = end + size;
      group.mutex.unlock();
    }
    units.finish();
    return contended;
  };
  const groups = await Promise.all(files.map(async (file) => ({ mutex: new Mutex(), handle: await fs.promises.open(file, "r+"), end: 0 })));
  const contended = await run.timed(() => Promise.all(groups.flatMap((group) => Array.from({ length: workers }, () => work(group)))));
  await Promise.all(groups.map((group) => group.handle.close()));
  run.evidence({ contended: contended.reduce((a, b) => a + b, 0) });
  return { bytes: sizesRemoved(files) };
}

/** A worker's loop: a blocking pwrite (fs.writeSync at a position) on the
 *  descriptor the caller opened (a worker shares its process's descriptors),
 *  the group's lock and end in SharedArrayBuffers. On Deno a worker opens the
 *  file itself, before its loop: Deno's node:fs descriptors are its isolate's
 *  (another isolate's is EBADF). */
function lockedWrites({ lock, end, fd: callers, file, iterations, size }) {
  const fd = ENGINE === "deno" ? fs.openSync(file, "r+") : callers;
  const mutex = new SharedLock(lock);
  const block = Buffer.alloc(size, "x");
  let contended = 0;
  for (let i = 0; i < iterations; i++) {
    if (!mutex.tryLock()) {
      contended++;
      mutex.lock();
    }
    const at = end[0];
    for (let written = 0; written < size; ) written += fs.writeSync(fd, block, written, size - written, at + written);
    end[0] = at + size;
    mutex.unlock();
  }
  if (fd !== callers) fs.closeSync(fd);
  return contended;
}

/** A Worker per unit, blocking writes, an Atomics lock per group. */
async function worker(run) {
  const { workers, iterations, size } = run.params;
  const files = groupFiles(run);
  const groups = files.map((file) => ({
    lock: new SharedLock().cells,
    end: new Float64Array(new SharedArrayBuffer(8)),
    fd: fs.openSync(file, "r+"),
    file,
  }));
  const contended = await run.timed(() =>
    Promise.all(
      groups.flatMap((group) =>
        Array.from({ length: workers }, () => startWorker(run, __filename, "lockedWrites", { ...group, iterations, size })),
      ),
    ),
  );
  for (const group of groups) fs.closeSync(group.fd);
  run.evidence({ contended: contended.reduce((a, b) => a + b, 0) });
  return { bytes: sizesRemoved(files) };
}

module.exports = { promise, worker, lockedWrites, groupFiles, sizesRemoved };

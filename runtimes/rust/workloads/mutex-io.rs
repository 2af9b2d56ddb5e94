// Mutex, I/O-bound (workloads/mutex-io.toml): per group one mutex, one file
// in the scratch directory and the file's end, shared by its units; each of
// `workers` units, `iterations` times, locks, reads the group's end, writes
// `size` bytes at that offset (FileExt::write_all_at: one pwrite, looping
// only on a short write; no user-space buffering), stores the end plus
// `size` and unlocks. The files are made before the clocks; their sizes are
// summed, and the files removed, after the clocks stop.
//
// contended: acquisitions whose try_lock failed, each then taken with lock;
// each unit counts its own, summed after the units are awaited.
use std::cell::Cell;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::thread;

use local_sync::semaphore::Semaphore;

use crate::kit::{Mechanism, Result, Run};
use crate::shared::executor::Spawner;
use crate::shared::lock::{acquire, lock, lock_async, lock_smol};
use crate::shared::monoio as monoio_tasks;
use crate::shared::smol as smol_tasks;
use crate::shared::tasks::{self, Flavor};
use crate::shared::threads;

pub const MECHANISMS: &[(&str, Mechanism)] = &[
    ("thread", mutex_io_threads),
    ("tokio", |run| mutex_io_tasks(run, Flavor::MultiThread)),
    ("tokio_ct", |run| mutex_io_tasks(run, Flavor::CurrentThread)),
    ("smol", mutex_io_smol),
    ("monoio", mutex_io_monoio),
];

/// One thread per worker, std's Mutex guarding the group's end; a thread's
/// pwrite blocks it, and the kernel runs another.
fn mutex_io_threads(run: &mut Run) -> Result {
    let (groups, workers, iterations) = (run.count("groups"), run.count("workers"), run.count("iterations"));
    let block = vec![b'x'; run.count("size")];
    let files = Files::create(run.scratch(), groups)?;
    let ends: Vec<Mutex<u64>> = (0..groups).map(|_| Mutex::new(0)).collect();
    let units = run.units();
    let contended = run.timed(|| {
        thread::scope(|scope| -> Result<i64> {
            let started = (0..groups * workers)
                .map(|w| {
                    let (end, file, block) = (&ends[w / workers], &*files.open[w / workers], block.as_slice());
                    threads::spawn(scope, &units, move || write_locked(end, file, block, iterations))
                })
                .collect::<io::Result<Vec<_>>>()?;
            Ok(started.into_iter().map(threads::join).sum::<io::Result<i64>>()?)
        })
    });
    files.report(run, contended)
}

/// One worker: its acquisitions that found the lock held.
fn write_locked(end: &Mutex<u64>, file: &File, block: &[u8], iterations: usize) -> io::Result<i64> {
    let mut contended = 0;
    for _ in 0..iterations {
        let mut end = lock(end, &mut contended);
        file.write_all_at(block, *end)?;
        *end += block.len() as u64;
    }
    Ok(contended)
}

/// One task per worker, tokio's Mutex guarding the group's end: it is held
/// across the write's await, and a task that finds it held waits without
/// holding up its thread. A regular file is not pollable, so the pwrite
/// runs on tokio's blocking pool (spawn_blocking, as tokio::fs does) while
/// the task awaits it. Not block_in_place: that panics on the
/// current-thread runtime, and the two mechanisms share this code. The
/// runtime is the process's lasting one, so that its blocking pool's
/// threads are started once, not inside every run's clocks (smol's pool is
/// the process's too).
fn mutex_io_tasks(run: &mut Run, flavor: Flavor) -> Result {
    let (groups, workers, iterations) = (run.count("groups"), run.count("workers"), run.count("iterations"));
    let block: Arc<[u8]> = vec![b'x'; run.count("size")].into();
    let files = Files::create(run.scratch(), groups)?;
    let ends: Arc<[tokio::sync::Mutex<u64>]> = (0..groups).map(|_| tokio::sync::Mutex::new(0)).collect();
    let units = run.units();
    let work = {
        let open = files.open.clone();
        async move {
            let started: Vec<_> = (0..groups * workers)
                .map(|w| {
                    let (ends, file, block) = (Arc::clone(&ends), Arc::clone(&open[w / workers]), Arc::clone(&block));
                    tasks::spawn(&units, async move {
                        write_locked_async(&ends[w / workers], file, block, iterations).await
                    })
                })
                .collect();
            let mut contended = 0;
            for task in started {
                contended += task.await??;
            }
            Ok::<_, crate::kit::Error>(contended)
        }
    };
    let contended = tasks::block_on_lasting(run, flavor, work).and_then(|done| done);
    files.report(run, contended)
}

/// One worker: its acquisitions that found the lock held.
async fn write_locked_async(
    end: &tokio::sync::Mutex<u64>,
    file: Arc<File>,
    block: Arc<[u8]>,
    iterations: usize,
) -> Result<i64> {
    let mut contended = 0;
    for _ in 0..iterations {
        let mut end = lock_async(end, &mut contended).await;
        let (file, block, at) = (Arc::clone(&file), Arc::clone(&block), *end);
        let size = block.len() as u64;
        tokio::task::spawn_blocking(move || file.write_all_at(&block, at)).await??;
        *end = at + size;
    }
    Ok(contended)
}

/// The groups' files, one each, in the scratch directory.
struct Files {
    paths: Vec<PathBuf>,
    open: Vec<Arc<File>>,
}

impl Files {
    /// Makes the files; if one cannot be made, removes those that were.
    fn create(scratch: &Path, groups: usize) -> Result<Files> {
        let mut files = Files {
            paths: Vec::with_capacity(groups),
            open: Vec::with_capacity(groups),
        };
        for g in 0..groups {
            let path = scratch.join(format!("mutex-io-{g}"));
            match OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
                Ok(file) => {
                    files.paths.push(path);
                    files.open.push(Arc::new(file));
                }
                Err(err) => {
                    let _ = files.remove(); // the failure to report is this one
                    return Err(format!("creating {}: {err}", path.display()).into());
                }
            }
        }
        Ok(files)
    }

    /// After the clocks: reports the sum of the files' sizes and the run's
    /// contention, unless the run failed, then removes the files either way.
    fn report(self, run: &mut Run, contended: Result<i64>) -> Result {
        let reported = contended.and_then(|contended| {
            let mut written = 0;
            for file in &self.open {
                written += file.metadata()?.len();
            }
            run.result("bytes", written as i64);
            run.evidence("contended", contended);
            Ok(())
        });
        let removed = self.remove();
        reported.and(removed)
    }

    fn remove(self) -> Result {
        drop(self.open); // closes them
        for path in &self.paths {
            fs::remove_file(path).map_err(|err| format!("removing {}: {err}", path.display()))?;
        }
        Ok(())
    }
}

/// One smol task per worker, smol's (async-lock's) Mutex guarding the
/// group's end: it is held across the write's await, and a task that finds
/// it held waits without holding up its runner. A regular file is not
/// pollable, and async-fs has no positioned write: the pwrite runs on the
/// blocking crate's thread pool (smol::unblock; async-fs's files do their
/// I/O on that pool too) while the task awaits it.
fn mutex_io_smol(run: &mut Run) -> Result {
    let (groups, workers, iterations) = (run.count("groups"), run.count("workers"), run.count("iterations"));
    let block: Arc<[u8]> = vec![b'x'; run.count("size")].into();
    let files = Files::create(run.scratch(), groups)?;
    let ends: Arc<[smol::lock::Mutex<u64>]> = (0..groups).map(|_| smol::lock::Mutex::new(0)).collect();
    let work = |tasks: smol_tasks::Tasks| {
        let open = files.open.clone();
        async move {
            let started: Vec<_> = (0..groups * workers)
                .map(|w| {
                    let (ends, file, block) = (Arc::clone(&ends), Arc::clone(&open[w / workers]), Arc::clone(&block));
                    tasks.spawn(async move { write_locked_smol(&ends[w / workers], file, block, iterations).await })
                })
                .collect();
            let mut contended = 0;
            for task in started {
                contended += task.await?;
            }
            Ok::<_, crate::kit::Error>(contended)
        }
    };
    let contended = smol_tasks::block_on(run, work).and_then(|done| done);
    files.report(run, contended)
}

/// One worker: its acquisitions that found the lock held.
async fn write_locked_smol(
    end: &smol::lock::Mutex<u64>,
    file: Arc<File>,
    block: Arc<[u8]>,
    iterations: usize,
) -> io::Result<i64> {
    let mut contended = 0;
    for _ in 0..iterations {
        let mut end = lock_smol(end, &mut contended).await;
        let (file, block, at) = (Arc::clone(&file), Arc::clone(&block), *end);
        let size = block.len() as u64;
        smol::unblock(move || file.write_all_at(&block, at)).await?;
        *end = at + size;
    }
    Ok(contended)
}

/// One monoio task per worker. A regular file's write is an io_uring
/// operation too: monoio's File::write_all_at, one io_uring WRITE at the
/// offset (another only after a short write), awaited holding the group's
/// lock: the task waits for its completion, and another finds the lock
/// held. The kernel may hand a write to its own io-wq workers (it does for
/// ext4's buffered writes here), threads that are not units.
fn mutex_io_monoio(run: &mut Run) -> Result {
    let files = Files::create(run.scratch(), run.count("groups"))?;
    let contended = write_files_monoio(run, &files);
    files.report(run, contended)
}

/// A group's end and the lock over it: local-sync has no Mutex, and a
/// Semaphore of one permit is the async mutex (tokio's Mutex is one); the
/// end it guards is the Cell beside it.
struct LockedEnd {
    lock: Semaphore,
    end: Cell<u64>,
}

/// The run's work, on a runtime of its own; each group's file is
/// duplicated (dup) into a monoio File on it before the clocks.
fn write_files_monoio(run: &mut Run, files: &Files) -> Result<i64> {
    let (workers, iterations) = (run.count("workers"), run.count("iterations"));
    let block = Rc::new(vec![b'x'; run.count("size")]);
    let units = run.units();
    let mut runtime = monoio_tasks::Runtime::new(run)?;
    let open = runtime.block_on(async {
        let dup = |file: &Arc<File>| Ok(Rc::new(monoio::fs::File::from_std(file.try_clone()?)?));
        files.open.iter().map(dup).collect::<io::Result<Vec<_>>>()
    })?;
    let ends: Rc<[LockedEnd]> = open
        .iter()
        .map(|_| LockedEnd {
            lock: Semaphore::new(1),
            end: Cell::new(0),
        })
        .collect();
    let work = async move {
        let started: Vec<_> = (0..open.len() * workers)
            .map(|w| {
                let (ends, file, block) = (Rc::clone(&ends), Rc::clone(&open[w / workers]), Rc::clone(&block));
                monoio_tasks::spawn(&units, async move {
                    write_locked_monoio(&ends[w / workers], &file, block, iterations).await
                })
            })
            .collect();
        let mut contended = 0;
        for task in started {
            contended += task.await?;
        }
        Ok(contended)
    };
    let contended = run.timed(|| runtime.block_on(work));
    drop(runtime);
    contended
}

/// One worker: its acquisitions that found the lock held. The block is
/// shared: monoio takes an Rc of one as the write's buffer.
async fn write_locked_monoio(
    locked: &LockedEnd,
    file: &monoio::fs::File,
    block: Rc<Vec<u8>>,
    iterations: usize,
) -> io::Result<i64> {
    let mut contended = 0;
    for _ in 0..iterations {
        let _held = acquire(&locked.lock, &mut contended).await;
        let at = locked.end.get();
        let size = block.len() as u64;
        file.write_all_at(Rc::clone(&block), at).await.0?;
        locked.end.set(at + size);
    }
    Ok(contended)
}

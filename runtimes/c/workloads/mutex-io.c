/* Mutex, I/O-bound: per group one mutex, one file in the scratch directory
 * and the file's end, shared by its units; each of `workers` threads,
 * `iterations` times, locks, reads the group's end, writes `size` bytes at
 * that offset (one pwrite call, no user-space buffering), stores the end
 * plus `size` and unlocks. Without the lock two threads would write at one
 * offset and the file come out short. The files are created before the
 * clocks (prepare); their sizes are summed, and the files removed, after
 * the clocks stop (finish): the result.
 *
 * contended: acquisitions whose pthread_mutex_trylock failed (the lock was
 * held), each then taken with pthread_mutex_lock; each worker counts its
 * own, summed after the join.
 *
 * No io_uring row: with one thread submitting there is no second unit to
 * take a lock, and queuing each file's writes at explicit offsets is not
 * lock, write, unlock (runtime.toml says so). */
#include "kit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct io_group {
    pthread_mutex_t lock;
    int fd;                /* -1 until created */
    int64_t end;           /* where the next write goes; guarded by lock */
};

struct io_worker {
    struct run *run;
    struct io_group *group;
    const char *block;
    int64_t iterations, size;
    int64_t contended;     /* counted by the worker, read after the join */
    pthread_t tid;
    bool started;
};

/* Made before the clocks, checked and removed after them. */
struct io_state {
    int64_t groups, workers, iterations, size;
    char *block;
    struct io_group *gs;
    struct io_worker *ws;
    int64_t created;       /* groups whose file and mutex exist */
};

static void file_path(struct run *run, int64_t g, char *path, size_t len)
{
    snprintf(path, len, "%s/mutex-io-%lld", run->scratch, (long long)g);
}

/* `size` bytes at `offset`, looping on short writes. */
static int pwrite_all(struct run *run, int fd, const char *buf, int64_t size, int64_t offset)
{
    while (size > 0) {
        ssize_t n = pwrite(fd, buf, (size_t)size, (off_t)offset);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return run_syserr(run, "pwrite", errno);
        }
        if (n == 0)
            return run_fail(run, "pwrite: wrote nothing");
        buf += n;
        size -= n;
        offset += n;
    }
    return 0;
}

static void *io_worker_main(void *arg)
{
    struct io_worker *w = arg;
    unit_started(w->run);
    struct io_group *g = w->group;
    int64_t contended = 0;
    for (int64_t i = 0; i < w->iterations; i++) {
        if (pthread_mutex_trylock(&g->lock) != 0) {   /* EBUSY: held by another */
            contended++;
            pthread_mutex_lock(&g->lock);
        }
        /* pwrite is a call the compiler cannot see into, and g escapes:
         * the end is read before it and stored after it, as written. */
        int64_t end = g->end;
        int rc = pwrite_all(w->run, g->fd, w->block, w->size, end);
        if (rc == 0)
            g->end = end + w->size;
        pthread_mutex_unlock(&g->lock);
        if (rc < 0)
            break;
    }
    w->contended = contended;
    unit_finished(w->run);
    return NULL;
}

/* After the clocks: the files' sizes are the result; then they are closed
 * and removed, as runs repeat in one process and each starts from empty
 * files. Also undoes a prepare() that failed half-way. */
static int io_finish(struct run *run)
{
    struct io_state *st = run->state;
    if (!st)
        return 0;
    int64_t bytes = 0;
    for (int64_t g = 0; g < st->created; g++) {
        struct stat sb;
        char path[4096];
        if (fstat(st->gs[g].fd, &sb) < 0)
            run_syserr(run, "fstat", errno);
        else
            bytes += sb.st_size;
        close_fd(run, st->gs[g].fd);
        file_path(run, g, path, sizeof path);
        if (unlink(path) < 0)
            run_syserr(run, "unlink", errno);
        pthread_mutex_destroy(&st->gs[g].lock);
    }
    bool complete = st->created == st->groups;
    free(st->gs);
    free(st->ws);
    free(st->block);
    free(st);
    run->state = NULL;
    if (run_failed(run))
        return -1;
    if (complete)
        result_set(run, "bytes", bytes);
    return 0;
}

/* Before the clocks: every group's file, created empty, and its mutex. */
static int io_prepare(struct run *run)
{
    struct io_state *st = calloc(1, sizeof *st);
    if (!st)
        return run_syserr(run, "calloc", errno);
    run->state = st;
    if (param_int(run, "groups", 1, &st->groups) < 0 || param_int(run, "workers", 1, &st->workers) < 0 ||
        param_int(run, "iterations", 1, &st->iterations) < 0 || param_int(run, "size", 1, &st->size) < 0 ||
        !(st->block = block_new(run, (size_t)st->size)))
        goto fail;
    int64_t nworkers = st->groups * st->workers;
    st->gs = calloc((size_t)st->groups, sizeof *st->gs);
    st->ws = calloc((size_t)nworkers, sizeof *st->ws);
    if (!st->gs || !st->ws) {
        run_syserr(run, "calloc", errno);
        goto fail;
    }
    for (; st->created < st->groups; st->created++) {
        struct io_group *g = &st->gs[st->created];
        char path[4096], call[4200];
        file_path(run, st->created, path, sizeof path);
        /* Not O_APPEND: Linux's pwrite would append whatever the offset. */
        if ((g->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
            snprintf(call, sizeof call, "open %s", path);
            run_syserr(run, call, errno);
            goto fail;
        }
        pthread_mutex_init(&g->lock, NULL);
    }
    for (int64_t i = 0; i < nworkers; i++)
        st->ws[i] = (struct io_worker){.run = run, .group = &st->gs[i / st->workers], .block = st->block,
                                       .iterations = st->iterations, .size = st->size};
    return 0;
fail:
    io_finish(run);
    return -1;
}

static int mutex_io_pthread(struct run *run)
{
    struct io_state *st = run->state;
    int64_t nworkers = st->groups * st->workers;
    for (int64_t i = 0; i < nworkers; i++)
        if (!(st->ws[i].started = thread_start(run, &st->ws[i].tid, io_worker_main, &st->ws[i]) == 0))
            break;
    int64_t contended = 0;
    for (int64_t i = 0; i < nworkers && st->ws[i].started; i++) {
        thread_join(run, st->ws[i].tid);
        contended += st->ws[i].contended;
    }
    if (run_failed(run))
        return -1;
    evidence_set(run, "contended", contended);
    return 0;
}

const struct mechanism mutex_io_mechanisms[] = {
    {.name = "pthread", .run = mutex_io_pthread, .prepare = io_prepare, .finish = io_finish},
    {0},
};

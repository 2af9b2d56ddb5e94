/* Mutex, I/O-bound: per group one mutex and one file in the scratch
 * directory; each of `workers` units, `iterations` times, locks, writes
 * `size` bytes to the file (one write call, no user-space buffering) and
 * unlocks. The result is the sum of the files' sizes. */
#include "kit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

struct io_params {
    int64_t groups, workers, iterations, size;
};

static int get_params(struct run *run, struct io_params *p)
{
    if (param_int(run, "groups", 1, &p->groups) < 0 || param_int(run, "workers", 1, &p->workers) < 0 ||
        param_int(run, "iterations", 1, &p->iterations) < 0 || param_int(run, "size", 1, &p->size) < 0)
        return -1;
    return 0;
}

static void file_path(struct run *run, int64_t g, char *path, size_t len)
{
    snprintf(path, len, "%s/mutex-io-%lld", run->scratch, (long long)g);
}

/* Adds up the files' sizes, then closes and removes them: runs repeat in one
 * process and each starts from empty files. */
static int64_t files_close(struct run *run, int *fds, int64_t groups)
{
    int64_t bytes = 0;
    for (int64_t g = 0; fds && g < groups; g++) {
        struct stat st;
        char path[4096];
        if (fstat(fds[g], &st) < 0)
            run_syserr(run, "fstat", errno);
        else
            bytes += st.st_size;
        close_fd(run, fds[g]);
        file_path(run, g, path, sizeof path);
        if (unlink(path) < 0)
            run_syserr(run, "unlink", errno);
    }
    free(fds);
    return bytes;
}

/* Creates every group's file; NULL (nothing left open) on failure. */
static int *files_new(struct run *run, int64_t groups)
{
    int *fds = malloc((size_t)groups * sizeof *fds);
    if (!fds) {
        run_syserr(run, "malloc", errno);
        return NULL;
    }
    for (int64_t g = 0; g < groups; g++) {
        char path[4096], call[4200];
        file_path(run, g, path, sizeof path);
        if ((fds[g] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
            snprintf(call, sizeof call, "open %s", path);
            run_syserr(run, call, errno);
            files_close(run, fds, g);
            return NULL;
        }
    }
    return fds;
}

/* ---- pthread: `workers` threads per group contend for its mutex ---------- */

struct io_group {
    pthread_mutex_t lock;
    int fd;
};

struct io_worker {
    struct run *run;
    struct io_group *group;
    const char *block;
    int64_t iterations, size;
    pthread_t tid;
    bool started;
};

static void *io_worker_main(void *arg)
{
    struct io_worker *w = arg;
    for (int64_t i = 0; i < w->iterations; i++) {
        pthread_mutex_lock(&w->group->lock);
        int rc = write_all(w->run, w->group->fd, w->block, (size_t)w->size);
        pthread_mutex_unlock(&w->group->lock);
        if (rc < 0)
            break;
    }
    return NULL;
}

static int mutex_io_pthread(struct run *run)
{
    struct io_params p;
    if (get_params(run, &p) < 0)
        return -1;
    int64_t nworkers = p.groups * p.workers;
    struct io_group *gs = calloc((size_t)p.groups, sizeof *gs);
    struct io_worker *ws = calloc((size_t)nworkers, sizeof *ws);
    char *block = block_new(run, (size_t)p.size);
    int *fds = NULL;
    if (!gs || !ws)
        run_syserr(run, "calloc", errno);
    else if (block && (fds = files_new(run, p.groups))) {
        for (int64_t g = 0; g < p.groups; g++) {
            pthread_mutex_init(&gs[g].lock, NULL);
            gs[g].fd = fds[g];
        }
        for (int64_t i = 0; i < nworkers; i++) {
            ws[i] = (struct io_worker){.run = run, .group = &gs[i / p.workers], .block = block,
                                       .iterations = p.iterations, .size = p.size};
            if (!(ws[i].started = thread_start(run, &ws[i].tid, io_worker_main, &ws[i]) == 0))
                break;
        }
        for (int64_t i = 0; i < nworkers && ws[i].started; i++)
            thread_join(run, ws[i].tid);
        for (int64_t g = 0; g < p.groups; g++)
            pthread_mutex_destroy(&gs[g].lock);
    }
    int64_t bytes = files_close(run, fds, p.groups);
    free(ws);
    free(gs);
    free(block);
    if (run_failed(run))
        return -1;
    result_set(run, "bytes", bytes);
    run->units = nworkers;
    return 0;
}

/* ---- io_uring: the same lock discipline, modelled in one thread ----------
 *
 * What the mutex does to the I/O is that each file sees one write at a time,
 * `workers * iterations` of them, while different files are written
 * concurrently. Here each group keeps exactly one write in flight (the
 * lock holder's); its `workers` logical workers wait their turn in a FIFO,
 * and on each completion the holder goes to the back (or leaves, after its
 * last iteration) and the next one submits. The files see the same writes,
 * serialised per file, with every group in flight at once; the offsets are
 * explicit because there is no file position shared by the writers. */

struct uring_group {
    int fd;
    int64_t offset;        /* where the next write goes (the file's end) */
    int64_t done;          /* bytes of the current write completed */
    int64_t *left;         /* per logical worker: writes still to make */
    int64_t *fifo;         /* worker ids waiting for the lock; head holds it */
    int64_t head, waiting;
};

struct uring_io {
    struct run *run;
    struct io_uring ring;
    struct uring_group *gs;
    const char *block;
    int64_t size, workers;
    unsigned inflight;
};

static int submit_write(struct uring_io *s, int64_t g)
{
    struct io_uring_sqe *sqe = uring_sqe(s->run, &s->ring);
    if (!sqe)
        return -1;
    struct uring_group *gr = &s->gs[g];
    io_uring_prep_write(sqe, gr->fd, s->block + gr->done, (unsigned)(s->size - gr->done),
                        (uint64_t)(gr->offset + gr->done));
    io_uring_sqe_set_data64(sqe, (uint64_t)g);
    s->inflight++;
    return 0;
}

/* The holder's write completed: the lock passes to the next in line.
 * Returns 1 once the group's last write is done, 0 otherwise, -1. */
static int write_done(void *state, const struct io_uring_cqe *cqe)
{
    struct uring_io *s = state;
    int64_t g = (int64_t)io_uring_cqe_get_data64(cqe);
    struct uring_group *gr = &s->gs[g];
    s->inflight--;
    if (cqe->res <= 0)
        return cqe->res < 0 ? run_syserr(s->run, "io_uring write", -cqe->res)
                            : run_fail(s->run, "io_uring write: wrote nothing");
    gr->done += cqe->res;
    if (gr->done < s->size)
        return submit_write(s, g);   /* short write: the holder keeps the lock */
    gr->offset += s->size;
    gr->done = 0;
    int64_t holder = gr->fifo[gr->head];
    gr->head = (gr->head + 1) % s->workers;
    gr->waiting--;
    if (--gr->left[holder] > 0) {
        gr->fifo[(gr->head + gr->waiting) % s->workers] = holder;
        gr->waiting++;
    }
    return gr->waiting > 0 ? submit_write(s, g) : 1;
}

static int uring_io_loop(struct uring_io *s, int64_t groups)
{
    for (int64_t g = 0; g < groups; g++)
        if (submit_write(s, g) < 0)
            return -1;
    return uring_run(s->run, &s->ring, groups, write_done, s);
}

/* Every group starts with all its workers queued, worker 0 holding the lock. */
static struct uring_group *uring_groups_new(struct run *run, const struct io_params *p, int *fds)
{
    struct uring_group *gs = calloc((size_t)p->groups, sizeof *gs);
    int64_t *left = malloc((size_t)(p->groups * p->workers) * sizeof *left);
    int64_t *fifo = malloc((size_t)(p->groups * p->workers) * sizeof *fifo);
    if (!gs || !left || !fifo) {
        run_syserr(run, "malloc", errno);
        free(gs);
        free(left);
        free(fifo);
        return NULL;
    }
    for (int64_t g = 0; g < p->groups; g++) {
        gs[g] = (struct uring_group){.fd = fds[g], .left = left + g * p->workers,
                                     .fifo = fifo + g * p->workers, .waiting = p->workers};
        for (int64_t w = 0; w < p->workers; w++) {
            gs[g].left[w] = p->iterations;
            gs[g].fifo[w] = w;
        }
    }
    return gs;
}

static void uring_groups_free(struct uring_group *gs)
{
    if (gs) {
        free(gs[0].left);   /* one allocation for all groups */
        free(gs[0].fifo);
    }
    free(gs);
}

static int mutex_io_io_uring(struct run *run)
{
    struct io_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct uring_io s = {.run = run, .size = p.size, .workers = p.workers};
    int *fds = NULL;
    int rc = -1;
    if ((s.block = block_new(run, (size_t)p.size)) && (fds = files_new(run, p.groups)) &&
             (s.gs = uring_groups_new(run, &p, fds)) &&
             uring_init(run, &s.ring, (unsigned)p.groups) == 0) {
        if ((rc = uring_io_loop(&s, p.groups)) < 0)
            uring_abort(&s.ring, s.inflight);
        io_uring_queue_exit(&s.ring);
    }
    int64_t bytes = files_close(run, fds, p.groups);
    uring_groups_free(s.gs);
    free((char *)s.block);
    if (rc < 0 || run_failed(run))
        return -1;
    result_set(run, "bytes", bytes);
    run->units = 1;
    return 0;
}

const struct mechanism mutex_io_mechanisms[] = {
    {"pthread", mutex_io_pthread},
    {"io_uring", mutex_io_io_uring},
    {NULL, NULL},
};

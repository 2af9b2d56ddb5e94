/* The stream workloads (pipe, socketpair) for every mechanism: see stream.h.
 * Each writer sends the same read-only block `messages` times; each reader
 * reads into a `size`-byte buffer until EOF, looping on short reads. */
#include "stream.h"
#include "uring.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

struct stream_params {
    int64_t groups, messages, size;
};

static int get_params(struct run *run, struct stream_params *p)
{
    if (param_int(run, "groups", 1, &p->groups) < 0 ||
        param_int(run, "messages", 1, &p->messages) < 0 ||
        param_int(run, "size", 1, &p->size) < 0)
        return -1;
    return 0;
}

/* ---- pthread: one thread per end, blocking I/O ---------------------------- */

struct stream_thread {
    struct run *run;
    const struct stream_kind *kind;
    const struct stream_params *p;
    const char *block;   /* writer: what it sends */
    int fd;
    int64_t bytes;       /* reader: bytes received */
    pthread_t tid;
    bool started;
};

static void *writer_main(void *arg)
{
    struct stream_thread *t = arg;
    unit_started(t->run);
    for (int64_t m = 0; m < t->p->messages; m++)
        if (write_all(t->run, t->fd, t->block, (size_t)t->p->size) < 0)
            break;
    /* Also after a failure: the reader must see EOF to end. */
    t->kind->end_writer(t->run, t->fd);
    unit_finished(t->run);
    return NULL;
}

static void *reader_main(void *arg)
{
    struct stream_thread *t = arg;
    unit_started(t->run);
    char *buf = malloc((size_t)t->p->size);
    if (!buf)
        run_syserr(t->run, "malloc", errno);
    for (ssize_t n; buf && (n = read(t->fd, buf, (size_t)t->p->size)) != 0;) {
        if (n > 0)
            t->bytes += n;
        else if (errno != EINTR) {
            run_syserr(t->run, "read", errno);
            break;
        }
    }
    free(buf);
    /* Also after a failure: a blocked writer then gets EPIPE and ends. */
    close_fd(t->run, t->fd);
    unit_finished(t->run);
    return NULL;
}

int stream_pthread(struct run *run, const struct stream_kind *kind)
{
    struct stream_params p;
    if (get_params(run, &p) < 0)
        return -1;
    char *block = block_new(run, (size_t)p.size);
    struct stream_thread *threads = calloc((size_t)p.groups * 2, sizeof *threads);
    if (!threads)
        run_syserr(run, "calloc", errno);

    for (int64_t g = 0; block && threads && g < p.groups; g++) {
        int fds[2];
        if (kind->make_pair(run, fds, false) < 0)
            break;
        struct stream_thread *w = &threads[2 * g], *r = &threads[2 * g + 1];
        *w = (struct stream_thread){.run = run, .kind = kind, .p = &p, .block = block, .fd = fds[1]};
        *r = (struct stream_thread){.run = run, .kind = kind, .p = &p, .fd = fds[0]};
        if (!(w->started = thread_start(run, &w->tid, writer_main, w) == 0)) {
            close(fds[0]);
            close(fds[1]);
            break;
        }
        if (!(r->started = thread_start(run, &r->tid, reader_main, r) == 0)) {
            close(fds[0]);   /* the running writer then gets EPIPE and ends */
            break;
        }
    }

    int64_t bytes = 0;
    for (int64_t i = 0; threads && i < p.groups * 2; i++) {
        if (threads[i].started)
            thread_join(run, threads[i].tid);
        bytes += threads[i].bytes;
    }
    free(threads);
    free(block);
    if (run_failed(run))
        return -1;
    result_set(run, "bytes", bytes);
    return 0;
}

/* ---- one thread, all groups: state shared by epoll and io_uring ---------- */

struct stream_group {
    int rfd, wfd;          /* -1 once closed */
    int64_t blocks_left;   /* writer: blocks not yet fully written */
    int64_t off;           /* writer: bytes of the current block written */
    char *buf;             /* io_uring reader: its own read buffer */
};

static void groups_free(struct stream_group *gs, int64_t n)
{
    for (int64_t g = 0; gs && g < n; g++) {
        if (gs[g].rfd >= 0)
            close(gs[g].rfd);
        if (gs[g].wfd >= 0)
            close(gs[g].wfd);
    }
    free(gs);
}

static struct stream_group *groups_new(struct run *run, const struct stream_kind *kind,
                                       const struct stream_params *p, bool nonblock)
{
    struct stream_group *gs = malloc((size_t)p->groups * sizeof *gs);
    if (!gs) {
        run_syserr(run, "malloc", errno);
        return NULL;
    }
    for (int64_t g = 0; g < p->groups; g++)
        gs[g] = (struct stream_group){.rfd = -1, .wfd = -1, .blocks_left = p->messages};
    for (int64_t g = 0; g < p->groups; g++) {
        int fds[2];
        if (kind->make_pair(run, fds, nonblock) < 0) {
            groups_free(gs, p->groups);
            return NULL;
        }
        gs[g].rfd = fds[0];
        gs[g].wfd = fds[1];
    }
    return gs;
}

/* Counts n more bytes written; true once the last block is out. */
static bool advance(struct stream_group *g, int64_t n, int64_t size)
{
    g->off += n;
    if (g->off == size) {
        g->off = 0;
        g->blocks_left--;
    }
    return g->blocks_left == 0;
}

/* ---- epoll: non-blocking descriptors, level-triggered --------------------- */

struct epoll_stream {
    struct run *run;
    const struct stream_kind *kind;
    int epfd;
    struct stream_group *gs;
    const char *block;
    char *buf;             /* one read buffer: one read runs at a time */
    int64_t size, bytes;
};

/* Event tags: group index << 1, low bit set for the writer's descriptor. */
static int epoll_watch(struct epoll_stream *s, int64_t groups)
{
    for (int64_t g = 0; g < groups; g++) {
        struct epoll_event rev = {.events = EPOLLIN, .data.u64 = (uint64_t)g << 1};
        struct epoll_event wev = {.events = EPOLLOUT, .data.u64 = (uint64_t)g << 1 | 1};
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->gs[g].rfd, &rev) < 0 ||
            epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->gs[g].wfd, &wev) < 0)
            return run_syserr(s->run, "epoll_ctl", errno);
    }
    return 0;
}

/* Writes until the pipe is full (EAGAIN) or the last block is out, then
 * removes and ends the writer. */
static int epoll_write(struct epoll_stream *s, struct stream_group *g)
{
    while (g->blocks_left > 0) {
        ssize_t n = write(g->wfd, s->block + g->off, (size_t)(s->size - g->off));
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n < 0 && errno != EINTR)
            return run_syserr(s->run, "write", errno);
        if (n > 0)
            advance(g, n, s->size);
    }
    if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, g->wfd, NULL) < 0)
        return run_syserr(s->run, "epoll_ctl", errno);
    int fd = g->wfd;
    g->wfd = -1;
    return s->kind->end_writer(s->run, fd);
}

/* Reads until EAGAIN (0) or EOF, where it removes and closes the reader (1). */
static int epoll_read(struct epoll_stream *s, struct stream_group *g)
{
    for (;;) {
        ssize_t n = read(g->rfd, s->buf, (size_t)s->size);
        if (n == 0)
            break;
        if (n > 0)
            s->bytes += n;
        else if (errno == EAGAIN)
            return 0;
        else if (errno != EINTR)
            return run_syserr(s->run, "read", errno);
    }
    if (epoll_ctl(s->epfd, EPOLL_CTL_DEL, g->rfd, NULL) < 0)
        return run_syserr(s->run, "epoll_ctl", errno);
    int fd = g->rfd;
    g->rfd = -1;
    return close_fd(s->run, fd) < 0 ? -1 : 1;
}

static int epoll_loop(struct epoll_stream *s, int64_t readers_open)
{
    struct epoll_event events[256];
    while (readers_open > 0) {
        int n = epoll_wait(s->epfd, events, 256, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return run_syserr(s->run, "epoll_wait", errno);
        for (int i = 0; i < n; i++) {
            uint64_t tag = events[i].data.u64;
            struct stream_group *g = &s->gs[tag >> 1];
            int rc = (tag & 1) ? epoll_write(s, g) : epoll_read(s, g);
            if (rc < 0)
                return -1;
            readers_open -= rc;
        }
    }
    return 0;
}

/* The one thread doing all the work is the run's one unit. */
static int stream_epoll_unit(struct run *run, const struct stream_kind *kind);

int stream_epoll(struct run *run, const struct stream_kind *kind)
{
    unit_started(run);
    int rc = stream_epoll_unit(run, kind);
    unit_finished(run);
    return rc;
}

static int stream_epoll_unit(struct run *run, const struct stream_kind *kind)
{
    struct stream_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct epoll_stream s = {.run = run, .kind = kind, .size = p.size, .epfd = -1};
    int rc = -1;
    if (!(s.block = block_new(run, (size_t)p.size)) || !(s.buf = block_new(run, (size_t)p.size)))
        goto out;
    if ((s.epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        run_syserr(run, "epoll_create1", errno);
        goto out;
    }
    if (!(s.gs = groups_new(run, kind, &p, true)) || epoll_watch(&s, p.groups) < 0)
        goto out;
    rc = epoll_loop(&s, p.groups);
out:
    groups_free(s.gs, p.groups);
    if (s.epfd >= 0)
        close(s.epfd);
    free((char *)s.block);
    free(s.buf);
    if (rc == 0)
        result_set(run, "bytes", s.bytes);
    return rc;
}

/* ---- io_uring: one write in flight per writer, one read per reader ------- */

struct uring_stream {
    struct run *run;
    const struct stream_kind *kind;
    struct io_uring ring;
    struct stream_group *gs;
    const char *block;
    int64_t size, bytes;
    unsigned inflight;
};

/* Request tags: group index << 1, low bit set for a write. */
static int uring_write(struct uring_stream *s, int64_t g)
{
    struct io_uring_sqe *sqe = uring_sqe(s->run, &s->ring);
    if (!sqe)
        return -1;
    struct stream_group *gr = &s->gs[g];
    io_uring_prep_write(sqe, gr->wfd, s->block + gr->off, (unsigned)(s->size - gr->off), 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)g << 1 | 1);
    s->inflight++;
    return 0;
}

static int uring_read(struct uring_stream *s, int64_t g)
{
    struct io_uring_sqe *sqe = uring_sqe(s->run, &s->ring);
    if (!sqe)
        return -1;
    io_uring_prep_read(sqe, s->gs[g].rfd, s->gs[g].buf, (unsigned)s->size, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)g << 1);
    s->inflight++;
    return 0;
}

/* One completion: resubmit, or end the writer / close the reader at EOF.
 * Returns 1 when a reader is done, 0 otherwise, -1 on failure. */
static int uring_complete(void *state, const struct io_uring_cqe *cqe)
{
    struct uring_stream *s = state;
    uint64_t tag = io_uring_cqe_get_data64(cqe);
    int64_t g = (int64_t)(tag >> 1);
    struct stream_group *gr = &s->gs[g];
    s->inflight--;
    if (tag & 1) {
        if (cqe->res <= 0)
            return cqe->res < 0 ? run_syserr(s->run, "io_uring write", -cqe->res)
                                : run_fail(s->run, "io_uring write: wrote nothing");
        if (!advance(gr, cqe->res, s->size))
            return uring_write(s, g);
        int fd = gr->wfd;
        gr->wfd = -1;
        return s->kind->end_writer(s->run, fd);
    }
    if (cqe->res < 0)
        return run_syserr(s->run, "io_uring read", -cqe->res);
    if (cqe->res > 0) {
        s->bytes += cqe->res;
        return uring_read(s, g);
    }
    int fd = gr->rfd;
    gr->rfd = -1;
    return close_fd(s->run, fd) < 0 ? -1 : 1;
}

static int uring_loop(struct uring_stream *s, int64_t groups)
{
    for (int64_t g = 0; g < groups; g++)
        if (uring_write(s, g) < 0 || uring_read(s, g) < 0)
            return -1;
    return uring_run(s->run, &s->ring, groups, uring_complete, s);
}

/* As with epoll, the one thread is the run's one unit. */
static int stream_io_uring_unit(struct run *run, const struct stream_kind *kind);

int stream_io_uring(struct run *run, const struct stream_kind *kind)
{
    unit_started(run);
    int rc = stream_io_uring_unit(run, kind);
    unit_finished(run);
    return rc;
}

static int stream_io_uring_unit(struct run *run, const struct stream_kind *kind)
{
    struct stream_params p;
    if (get_params(run, &p) < 0)
        return -1;
    struct uring_stream s = {.run = run, .kind = kind, .size = p.size};
    char *bufs = malloc((size_t)(p.groups * p.size));
    s.block = block_new(run, (size_t)p.size);
    if (!bufs)
        run_syserr(run, "malloc", errno);
    if (!bufs || !s.block || uring_init(run, &s.ring, (unsigned)(2 * p.groups)) < 0) {
        free(bufs);
        free((char *)s.block);
        return -1;
    }
    int rc = -1;
    if ((s.gs = groups_new(run, kind, &p, false))) {
        for (int64_t g = 0; g < p.groups; g++)
            s.gs[g].buf = bufs + g * p.size;
        rc = uring_loop(&s, p.groups);
    }
    if (rc < 0)
        uring_abort(&s.ring, s.inflight);
    io_uring_queue_exit(&s.ring);
    groups_free(s.gs, p.groups);
    free(bufs);
    free((char *)s.block);
    if (rc == 0)
        result_set(run, "bytes", s.bytes);
    return rc;
}

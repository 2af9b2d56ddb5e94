/* await-readable and await-writable for every mechanism: see readiness.h. */
#include "readiness.h"
#include "uring.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

struct awaits {
    const struct readiness *kind;
    int64_t batch, ready;      /* ready: awaits that reported readiness */
    int64_t made;              /* pipes made so far */
    int *awaited, *other;      /* per pipe: the end awaited, the other end */
};

static void pipes_close(struct run *run, struct awaits *a)
{
    for (int64_t i = 0; i < a->made; i++) {
        close_fd(run, a->awaited[i]);
        close_fd(run, a->other[i]);
    }
    free(a->awaited);
    free(a->other);
}

/* Reads the batch and makes that many pipes; nothing left open on failure. */
static int pipes_new(struct run *run, const struct readiness *kind, struct awaits *a)
{
    *a = (struct awaits){.kind = kind};
    if (param_int(run, "batch", 1, &a->batch) < 0)
        return -1;
    a->awaited = malloc((size_t)a->batch * sizeof *a->awaited);
    a->other = malloc((size_t)a->batch * sizeof *a->other);
    if (!a->awaited || !a->other) {
        run_syserr(run, "malloc", errno);
        goto fail;
    }
    while (a->made < a->batch) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0) {
            run_syserr(run, "pipe2", errno);
            goto fail;
        }
        a->awaited[a->made] = fds[kind->filled ? 0 : 1];
        a->other[a->made++] = fds[kind->filled ? 1 : 0];
        if (kind->filled && write_all(run, fds[1], "0", 1) < 0)
            goto fail;
    }
    return 0;
fail:
    pipes_close(run, a);
    return -1;
}

/* Closes the pipes and reports the run, unless it failed. */
static int pipes_done(struct run *run, struct awaits *a, int rc)
{
    pipes_close(run, a);
    if (rc < 0 || run_failed(run))
        return -1;
    result_set(run, "count", a->ready);
    return 0;
}

/* Every mechanism here is one thread awaiting in turn: the run's one unit,
 * alive while it runs the loop. */
static int rate_loop(struct run *run, int (*step)(struct run *run, void *state), void *state)
{
    unit_started(run);
    int rc = run_rate(run, step, state);
    unit_finished(run);
    return rc;
}

/* ---- pthread: the thread waits in place, in poll() ---------------------- */

static int poll_step(struct run *run, void *state)
{
    struct awaits *a = state;
    for (int64_t i = 0; i < a->batch; i++) {
        struct pollfd pfd = {.fd = a->awaited[i], .events = a->kind->events};
        int n;
        while ((n = poll(&pfd, 1, -1)) < 0 && errno == EINTR)
            ;
        if (n < 0)
            return run_syserr(run, "poll", errno);
        if (n == 1 && (pfd.revents & a->kind->events))
            a->ready++;
    }
    return 0;
}

int readiness_pthread(struct run *run, const struct readiness *kind)
{
    struct awaits a;
    if (pipes_new(run, kind, &a) < 0)
        return -1;
    return pipes_done(run, &a, rate_loop(run, poll_step, &a));
}

/* ---- epoll: one instance, each await arms its descriptor for one report -- */

struct epoll_awaits {
    struct awaits a;
    int epfd;
};

/* Registered with no event of interest, the state in which EPOLLONESHOT
 * leaves a descriptor after its report: only the one an operation arms can
 * be reported. */
static int epoll_register(struct run *run, struct epoll_awaits *e)
{
    if ((e->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
        return run_syserr(run, "epoll_create1", errno);
    for (int64_t i = 0; i < e->a.batch; i++) {
        struct epoll_event ev = {.events = EPOLLONESHOT, .data.fd = e->a.awaited[i]};
        if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->a.awaited[i], &ev) < 0)
            return run_syserr(run, "epoll_ctl", errno);
    }
    return 0;
}

static int epoll_step(struct run *run, void *state)
{
    struct epoll_awaits *e = state;
    uint32_t events = (uint32_t)e->a.kind->events;
    for (int64_t i = 0; i < e->a.batch; i++) {
        int fd = e->a.awaited[i], n;
        struct epoll_event ev = {.events = events | EPOLLONESHOT, .data.fd = fd};
        if (epoll_ctl(e->epfd, EPOLL_CTL_MOD, fd, &ev) < 0)
            return run_syserr(run, "epoll_ctl", errno);
        while ((n = epoll_wait(e->epfd, &ev, 1, -1)) < 0 && errno == EINTR)
            ;
        if (n < 0)
            return run_syserr(run, "epoll_wait", errno);
        if (n == 1 && ev.data.fd == fd && (ev.events & events))
            e->a.ready++;
    }
    return 0;
}

int readiness_epoll(struct run *run, const struct readiness *kind)
{
    struct epoll_awaits e = {.epfd = -1};
    if (pipes_new(run, kind, &e.a) < 0)
        return -1;
    int rc = epoll_register(run, &e);
    if (rc == 0)
        rc = rate_loop(run, epoll_step, &e);
    if (e.epfd >= 0)
        close_fd(run, e.epfd);
    return pipes_done(run, &e.a, rc);
}

/* ---- io_uring: one poll request per await, submitted and reaped --------- */

struct uring_awaits {
    struct awaits a;
    struct run *run;
    struct io_uring ring;
    unsigned inflight;
    int64_t awaiting;   /* the index of the pipe whose poll is in flight */
};

static int poll_done(void *state, const struct io_uring_cqe *cqe)
{
    struct uring_awaits *u = state;
    u->inflight--;
    if (cqe->res < 0)
        return run_syserr(u->run, "io_uring poll", -cqe->res);
    if (io_uring_cqe_get_data64(cqe) == (uint64_t)u->awaiting && (cqe->res & u->a.kind->events))
        u->a.ready++;
    return 1;
}

static int uring_step(struct run *run, void *state)
{
    struct uring_awaits *u = state;
    for (u->awaiting = 0; u->awaiting < u->a.batch; u->awaiting++) {
        struct io_uring_sqe *sqe = uring_sqe(run, &u->ring);
        if (!sqe)
            return -1;
        io_uring_prep_poll_add(sqe, u->a.awaited[u->awaiting], (unsigned)u->a.kind->events);
        io_uring_sqe_set_data64(sqe, (uint64_t)u->awaiting);
        u->inflight++;
        if (uring_run(run, &u->ring, 1, poll_done, u) < 0)
            return -1;
    }
    return 0;
}

int readiness_io_uring(struct run *run, const struct readiness *kind)
{
    struct uring_awaits u = {.run = run};
    if (pipes_new(run, kind, &u.a) < 0)
        return -1;
    int rc = uring_init(run, &u.ring, 1);
    if (rc == 0) {
        if ((rc = rate_loop(run, uring_step, &u)) < 0)
            uring_abort(&u.ring, u.inflight);
        io_uring_queue_exit(&u.ring);
    }
    return pipes_done(run, &u.a, rc);
}

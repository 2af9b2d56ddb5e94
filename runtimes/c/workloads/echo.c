/* Echo: a server under concbench's load generator. Before the clocks
 * (prepare) the listener is opened, on 127.0.0.1 with a port the kernel
 * picks or at <scratch>/echo.sock, and announced (listener_announce); in the
 * run the mechanism accepts exactly `connections` connections and, on each,
 * writes back every byte it reads until EOF, then closes it; after the
 * clocks (finish) the listener is closed and its path removed. TCP
 * connections get TCP_NODELAY, as every echo server sets: a reply is one
 * small write that must leave at once.
 *
 * held: the most connections open in the server at once, counted +1 at
 * accept and -1 at close. */
#include "kit.h"
#include "uring.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* A read takes a whole request, or a page if requests are smaller. */
#define BUFFER_MIN 4096

static const char *const transports[] = {"tcp", "unix", NULL};
enum { TCP, UNIX };

/* Made before the clocks, undone after them. */
struct echo_state {
    int64_t connections;
    size_t buffer;            /* bytes per read: max(size, BUFFER_MIN) */
    int transport;
    int listener;             /* -1 until open */
    struct sockaddr_un path;  /* unix: where the listener is bound */
};

/* After the clocks: the listener closed, a Unix socket's path removed. Also
 * undoes a prepare() that failed half-way. */
static int echo_finish(struct run *run)
{
    struct echo_state *st = run->state;
    if (!st)
        return 0;
    int rc = 0;
    if (st->listener >= 0 && close_fd(run, st->listener) < 0)
        rc = -1;
    if (st->transport == UNIX && st->path.sun_path[0] && unlink(st->path.sun_path) < 0 && errno != ENOENT)
        rc = run_syserr(run, "unlink", errno);
    free(st);
    run->state = NULL;
    return rc;
}

/* A server holds a descriptor per connection: the soft limit is raised to
 * the hard one, as servers do, so that it is the trial's cap that counts. */
static int raise_descriptor_limit(struct run *run)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) < 0)
        return run_syserr(run, "getrlimit", errno);
    lim.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &lim) < 0)
        return run_syserr(run, "setrlimit", errno);
    return 0;
}

static int bind_tcp(struct run *run, struct echo_state *st)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(st->listener, (struct sockaddr *)&addr, sizeof addr) < 0)
        return run_syserr(run, "bind", errno);
    return 0;
}

/* A leftover socket file of the previous run is removed first. */
static int bind_unix(struct run *run, struct echo_state *st)
{
    struct sockaddr_un *addr = &st->path;
    addr->sun_family = AF_UNIX;
    if (snprintf(addr->sun_path, sizeof addr->sun_path, "%s/echo.sock", run->scratch) >=
        (int)sizeof addr->sun_path) {
        addr->sun_path[0] = '\0';
        return run_fail(run, "%s/echo.sock: too long for a Unix socket's path", run->scratch);
    }
    if (unlink(addr->sun_path) < 0 && errno != ENOENT)
        return run_syserr(run, "unlink", errno);
    if (bind(st->listener, (struct sockaddr *)addr, sizeof *addr) < 0)
        return run_syserr(run, "bind", errno);
    return 0;
}

/* Before the clocks: the listener (non-blocking for a mechanism that waits
 * for readiness, epoll), with a backlog of `connections` (the kernel caps it
 * at somaxconn), then its address announced. */
static int echo_prepare(struct run *run, bool nonblock)
{
    struct echo_state *st = calloc(1, sizeof *st);
    if (!st)
        return run_syserr(run, "calloc", errno);
    run->state = st;
    st->listener = -1;
    int64_t size;
    if (param_int(run, "connections", 1, &st->connections) < 0 || param_int(run, "size", 1, &size) < 0 ||
        param_choice(run, "transport", transports, &st->transport) < 0 || raise_descriptor_limit(run) < 0)
        goto fail;
    st->buffer = size > BUFFER_MIN ? (size_t)size : BUFFER_MIN;
    int type = SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0);
    if ((st->listener = socket(st->transport == TCP ? AF_INET : AF_UNIX, type, 0)) < 0) {
        run_syserr(run, "socket", errno);
        goto fail;
    }
    if ((st->transport == TCP ? bind_tcp : bind_unix)(run, st) < 0)
        goto fail;
    if (listen(st->listener, (int)st->connections) < 0) {
        run_syserr(run, "listen", errno);
        goto fail;
    }
    if (listener_announce(run, st->listener) < 0)
        goto fail;
    return 0;
fail:
    echo_finish(run);
    return -1;
}

static int prepare_blocking(struct run *run) { return echo_prepare(run, false); }
static int prepare_nonblocking(struct run *run) { return echo_prepare(run, true); }

/* An accepted connection, made ready to serve (TCP_NODELAY on TCP). */
static int connection_setup(struct run *run, const struct echo_state *st, int fd)
{
    int on = 1;
    if (st->transport == TCP && setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) < 0)
        return run_syserr(run, "setsockopt TCP_NODELAY", errno);
    return 0;
}

static void report(struct run *run, int64_t accepted, int64_t bytes, int64_t held)
{
    result_set(run, "connections", accepted);
    result_set(run, "bytes", bytes);
    evidence_set(run, "held", held);
}

/* ---- pthread: the caller accepts, a thread per connection, blocking I/O -- */

struct connection_thread {
    struct run *run;
    size_t buffer;
    _Atomic int64_t *open;   /* connections open in the server */
    int fd;
    int64_t bytes;           /* written back, read after the join */
    pthread_t tid;
};

static void *connection_main(void *arg)
{
    struct connection_thread *t = arg;
    unit_started(t->run);
    char *buf = malloc(t->buffer);
    if (!buf)
        run_syserr(t->run, "malloc", errno);
    for (ssize_t n; buf && (n = read(t->fd, buf, t->buffer)) != 0;) {
        if (n > 0) {
            if (write_all(t->run, t->fd, buf, (size_t)n) < 0)
                break;
            t->bytes += n;
        } else if (errno != EINTR) {
            run_syserr(t->run, "read", errno);
            break;
        }
    }
    free(buf);
    close_fd(t->run, t->fd);
    atomic_fetch_sub_explicit(t->open, 1, memory_order_relaxed);
    unit_finished(t->run);
    return NULL;
}

static int echo_pthread(struct run *run)
{
    struct echo_state *st = run->state;
    struct connection_thread *threads = calloc((size_t)st->connections, sizeof *threads);
    if (!threads)
        return run_syserr(run, "calloc", errno);
    _Atomic int64_t open = 0;
    int64_t accepted = 0, held = 0;
    while (accepted < st->connections) {
        int fd = accept4(st->listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0) {
            run_syserr(run, "accept4", errno);
            break;
        }
        if (connection_setup(run, st, fd) < 0) {
            close(fd);
            break;
        }
        /* Only the caller adds, so its own count after adding is the peak. */
        int64_t now = atomic_fetch_add_explicit(&open, 1, memory_order_relaxed) + 1;
        if (now > held)
            held = now;
        struct connection_thread *t = &threads[accepted];
        *t = (struct connection_thread){.run = run, .buffer = st->buffer, .open = &open, .fd = fd};
        if (thread_start(run, &t->tid, connection_main, t) < 0) {
            close(fd);
            atomic_fetch_sub_explicit(&open, 1, memory_order_relaxed);
            break;
        }
        accepted++;
    }
    int64_t bytes = 0;
    for (int64_t i = 0; i < accepted; i++) {
        thread_join(run, threads[i].tid);
        bytes += threads[i].bytes;
    }
    free(threads);
    if (run_failed(run))
        return -1;
    report(run, accepted, bytes, held);
    return 0;
}

/* ---- one thread, all connections: state shared by epoll and io_uring ---- */

struct connection {
    int fd;
    char *buf;       /* its own: a reply may wait while others are read */
    size_t len;      /* bytes read into buf ... */
    size_t off;      /* ... and of them written back */
    bool awaiting_writable;   /* epoll: a reply waits for room to be sent */
};

struct server {
    struct run *run;
    const struct echo_state *st;
    struct connection *conns;   /* in the order they were accepted */
    char *bufs;
    int64_t accepted, open, held, bytes;
};

static int server_init(struct run *run, struct server *s)
{
    const struct echo_state *st = run->state;
    *s = (struct server){.run = run, .st = st};
    s->conns = calloc((size_t)st->connections, sizeof *s->conns);
    s->bufs = malloc((size_t)st->connections * st->buffer);
    if (!s->conns || !s->bufs) {
        free(s->conns);
        free(s->bufs);
        return run_syserr(run, "malloc", errno);
    }
    return 0;
}

/* The next connection, counted open; NULL (fd closed) if it cannot be served. */
static struct connection *server_add(struct server *s, int fd)
{
    if (connection_setup(s->run, s->st, fd) < 0) {
        close(fd);
        return NULL;
    }
    struct connection *c = &s->conns[s->accepted];
    *c = (struct connection){.fd = fd, .buf = s->bufs + s->accepted * s->st->buffer};
    s->accepted++;
    if (++s->open > s->held)
        s->held = s->open;
    return c;
}

static int server_close(struct server *s, struct connection *c)
{
    int fd = c->fd;
    c->fd = -1;
    s->open--;
    return close_fd(s->run, fd);
}

/* Closes what a failed run left open, frees, and reports a run that served all. */
static int server_end(struct server *s, int rc)
{
    for (int64_t i = 0; i < s->accepted; i++)
        if (s->conns[i].fd >= 0)
            close(s->conns[i].fd);
    free(s->conns);
    free(s->bufs);
    if (rc == 0)
        report(s->run, s->accepted, s->bytes, s->held);
    return rc;
}

/* ---- epoll: non-blocking sockets, level-triggered, the listener too ------ */

#define LISTENER_TAG UINT64_MAX   /* other tags: the connection's index */

static int epoll_set(struct server *s, int epfd, int op, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    if (epoll_ctl(epfd, op, fd, &ev) < 0)
        return run_syserr(s->run, "epoll_ctl", errno);
    return 0;
}

/* Accepts what is waiting; once all `connections` are in, stops watching
 * the listener. */
static int epoll_accept(struct server *s, int epfd)
{
    while (s->accepted < s->st->connections) {
        int fd = accept4(s->st->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && errno == EAGAIN)
            return 0;
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0)
            return run_syserr(s->run, "accept4", errno);
        struct connection *c = server_add(s, fd);
        if (!c || epoll_set(s, epfd, EPOLL_CTL_ADD, fd, EPOLLIN, (uint64_t)(c - s->conns)) < 0)
            return -1;
    }
    return epoll_set(s, epfd, EPOLL_CTL_DEL, s->st->listener, 0, 0);
}

/* Writes back what was read; if the socket is full, waits for it to be
 * writable (and reads nothing more from it) until the reply is out. */
static int epoll_reply(struct server *s, int epfd, struct connection *c)
{
    while (c->off < c->len) {
        ssize_t n = write(c->fd, c->buf + c->off, c->len - c->off);
        if (n < 0 && errno == EAGAIN) {
            if (c->awaiting_writable)
                return 0;
            c->awaiting_writable = true;
            return epoll_set(s, epfd, EPOLL_CTL_MOD, c->fd, EPOLLOUT, (uint64_t)(c - s->conns));
        }
        if (n < 0 && errno != EINTR)
            return run_syserr(s->run, "write", errno);
        if (n > 0) {
            c->off += (size_t)n;
            s->bytes += n;
        }
    }
    if (!c->awaiting_writable)
        return 0;
    c->awaiting_writable = false;
    return epoll_set(s, epfd, EPOLL_CTL_MOD, c->fd, EPOLLIN, (uint64_t)(c - s->conns));
}

/* One read (level-triggered: what is left is reported again), echoed; at
 * EOF the connection is closed, which also removes it from the epoll set. */
static int epoll_read(struct server *s, int epfd, struct connection *c)
{
    ssize_t n = read(c->fd, c->buf, s->st->buffer);
    if (n == 0)
        return server_close(s, c);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : run_syserr(s->run, "read", errno);
    c->len = (size_t)n;
    c->off = 0;
    return epoll_reply(s, epfd, c);
}

static int epoll_loop(struct server *s, int epfd)
{
    struct epoll_event events[256];
    while (s->accepted < s->st->connections || s->open > 0) {
        int n = epoll_wait(epfd, events, 256, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return run_syserr(s->run, "epoll_wait", errno);
        for (int i = 0; i < n; i++) {
            uint64_t tag = events[i].data.u64;
            struct connection *c = tag == LISTENER_TAG ? NULL : &s->conns[tag];
            int rc = !c                   ? epoll_accept(s, epfd)
                     : c->awaiting_writable ? epoll_reply(s, epfd, c)
                                            : epoll_read(s, epfd, c);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

/* The one thread serving every connection is the run's one unit. */
static int echo_epoll_unit(struct run *run);

static int echo_epoll(struct run *run)
{
    unit_started(run);
    int rc = echo_epoll_unit(run);
    unit_finished(run);
    return rc;
}

static int echo_epoll_unit(struct run *run)
{
    struct server s;
    if (server_init(run, &s) < 0)
        return -1;
    int rc = -1, epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0)
        run_syserr(run, "epoll_create1", errno);
    else if (epoll_set(&s, epfd, EPOLL_CTL_ADD, s.st->listener, EPOLLIN, LISTENER_TAG) == 0)
        rc = epoll_loop(&s, epfd);
    if (epfd >= 0)
        close(epfd);
    return server_end(&s, rc);
}

/* ---- io_uring: one accept at a time, one recv or send per connection ----
 *
 * One accept is in flight until all `connections` are in: exactly that
 * many are accepted, with no multishot accept left to cancel after. */

struct uring_server {
    struct server s;
    struct io_uring ring;
    unsigned inflight;
};

/* Request tags: ACCEPT_TAG, or the connection's index << 1, low bit set
 * for a send. */
#define ACCEPT_TAG UINT64_MAX

static int uring_accept(struct uring_server *u)
{
    struct io_uring_sqe *sqe = uring_sqe(u->s.run, &u->ring);
    if (!sqe)
        return -1;
    io_uring_prep_accept(sqe, u->s.st->listener, NULL, NULL, SOCK_CLOEXEC);
    io_uring_sqe_set_data64(sqe, ACCEPT_TAG);
    u->inflight++;
    return 0;
}

static int uring_recv(struct uring_server *u, struct connection *c)
{
    struct io_uring_sqe *sqe = uring_sqe(u->s.run, &u->ring);
    if (!sqe)
        return -1;
    io_uring_prep_recv(sqe, c->fd, c->buf, u->s.st->buffer, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)(c - u->s.conns) << 1);
    u->inflight++;
    return 0;
}

static int uring_send(struct uring_server *u, struct connection *c)
{
    struct io_uring_sqe *sqe = uring_sqe(u->s.run, &u->ring);
    if (!sqe)
        return -1;
    io_uring_prep_send(sqe, c->fd, c->buf + c->off, c->len - c->off, 0);
    io_uring_sqe_set_data64(sqe, (uint64_t)(c - u->s.conns) << 1 | 1);
    u->inflight++;
    return 0;
}

/* A new connection: its first recv, and the next accept while some are
 * still to come. */
static int uring_accepted(struct uring_server *u, int res)
{
    if (res < 0)
        return run_syserr(u->s.run, "io_uring accept", -res);
    struct connection *c = server_add(&u->s, res);
    if (!c || uring_recv(u, c) < 0)
        return -1;
    return u->s.accepted < u->s.st->connections ? uring_accept(u) : 0;
}

/* One completion: a received request is sent back (the rest of a short
 * send again), a sent reply is followed by the next recv, EOF closes the
 * connection. Returns 1 when a connection is closed, 0 otherwise, -1 on
 * failure. */
static int uring_complete(void *state, const struct io_uring_cqe *cqe)
{
    struct uring_server *u = state;
    struct server *s = &u->s;
    uint64_t tag = io_uring_cqe_get_data64(cqe);
    u->inflight--;
    if (tag == ACCEPT_TAG)
        return uring_accepted(u, cqe->res);
    struct connection *c = &s->conns[tag >> 1];
    if (tag & 1) {
        if (cqe->res <= 0)
            return cqe->res < 0 ? run_syserr(s->run, "io_uring send", -cqe->res)
                                : run_fail(s->run, "io_uring send: sent nothing");
        c->off += (size_t)cqe->res;
        s->bytes += cqe->res;
        return c->off < c->len ? uring_send(u, c) : uring_recv(u, c);
    }
    if (cqe->res < 0)
        return run_syserr(s->run, "io_uring recv", -cqe->res);
    if (cqe->res == 0)
        return server_close(s, c) < 0 ? -1 : 1;
    c->len = (size_t)cqe->res;
    c->off = 0;
    return uring_send(u, c);
}

/* As with epoll, the one thread is the run's one unit. */
static int echo_io_uring_unit(struct run *run);

static int echo_io_uring(struct run *run)
{
    unit_started(run);
    int rc = echo_io_uring_unit(run);
    unit_finished(run);
    return rc;
}

static int echo_io_uring_unit(struct run *run)
{
    struct uring_server u = {0};
    if (server_init(run, &u.s) < 0)
        return -1;
    /* In flight at once: a recv or send per connection, and the accept. */
    if (uring_init(run, &u.ring, (unsigned)u.s.st->connections + 1) < 0)
        return server_end(&u.s, -1);
    int rc = uring_accept(&u);
    if (rc == 0)
        rc = uring_run(run, &u.ring, u.s.st->connections, uring_complete, &u);
    if (rc < 0)
        uring_abort(&u.ring, u.inflight);
    io_uring_queue_exit(&u.ring);
    return server_end(&u.s, rc);
}

const struct mechanism echo_mechanisms[] = {
    {.name = "pthread", .run = echo_pthread, .prepare = prepare_blocking, .finish = echo_finish},
    {.name = "epoll", .run = echo_epoll, .prepare = prepare_nonblocking, .finish = echo_finish},
    {.name = "io_uring", .run = echo_io_uring, .prepare = prepare_blocking, .finish = echo_finish},
    {0},
};

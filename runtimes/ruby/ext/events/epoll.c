/* The core's epoll back end (events.h): polls and timeouts are operations
 * that complete in wait, as on the ring; reads and writes are not
 * operations here (transfer is NULL) but calls the core makes at once, and
 * again after a poll when they would block: the way an epoll loop does them.
 * Completions are listed as they happen (a cancellation's too) and handed
 * to the core only in wait, as the ring's are.
 *
 * Each descriptor is in the epoll set once, one-shot, for the union of the
 * events its waiters poll for, and re-armed while any wait. Timeouts are a
 * min-heap on their deadlines; epoll_pwait2 sleeps until the nearest. */
#include "events.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

struct waiter {
    struct op *op;
    unsigned events;
};

struct watch {   /* one descriptor's waiters */
    struct waiter *waiters;
    unsigned count, capacity;
    bool added;   /* in the epoll set (perhaps disarmed) */
};

struct timer {
    long long due;   /* CLOCK_MONOTONIC, ns */
    struct op *op;
};

struct done {
    struct op *op;
    int result;
};

enum { EVENTS_PER_WAIT = 64 };

struct epoll {
    int fd;   /* -1 once closed */
    struct watch *watches;   /* indexed by descriptor */
    unsigned nwatches;
    struct timer *timers;   /* a min-heap on due */
    unsigned ntimers, timers_capacity;
    struct done *done;   /* completed; done[next_done..ndone) not yet yielded */
    unsigned ndone, next_done, done_capacity;
    unsigned long long waits, ctls, completions;   /* counts, for profiles */
};

/* Makes room for need items in an array of capacity items of size bytes. */
static void *room(void *items, unsigned *capacity, unsigned need, size_t size)
{
    if (need <= *capacity)
        return items;
    unsigned grown = *capacity ? *capacity * 2 : 16;
    while (grown < need)
        grown *= 2;
    items = ruby_xrealloc2(items, grown, size);
    *capacity = grown;
    return items;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void complete(struct epoll *e, struct op *op, int result)
{
    e->done = room(e->done, &e->done_capacity, e->ndone + 1, sizeof *e->done);
    e->done[e->ndone++] = (struct done){op, result};
}

/* ---- timers: a min-heap on due ------------------------------------------ */

static void timer_swap(struct epoll *e, unsigned a, unsigned b)
{
    struct timer t = e->timers[a];
    e->timers[a] = e->timers[b];
    e->timers[b] = t;
}

static void sift_up(struct epoll *e, unsigned i)
{
    for (; i > 0 && e->timers[(i - 1) / 2].due > e->timers[i].due; i = (i - 1) / 2)
        timer_swap(e, i, (i - 1) / 2);
}

static void sift_down(struct epoll *e, unsigned i)
{
    for (;;) {
        unsigned least = i, left = 2 * i + 1, right = left + 1;
        if (left < e->ntimers && e->timers[left].due < e->timers[least].due)
            least = left;
        if (right < e->ntimers && e->timers[right].due < e->timers[least].due)
            least = right;
        if (least == i)
            return;
        timer_swap(e, i, least);
        i = least;
    }
}

static void timer_remove(struct epoll *e, unsigned i)
{
    e->timers[i] = e->timers[--e->ntimers];
    if (i < e->ntimers) {
        sift_down(e, i);
        sift_up(e, i);
    }
}

/* Completes the timers that are due with -ETIME, as the ring's do. */
static void expire(struct epoll *e)
{
    long long now = now_ns();
    while (e->ntimers && e->timers[0].due <= now) {
        complete(e, e->timers[0].op, -ETIME);
        timer_remove(e, 0);
    }
}

/* ---- descriptors -------------------------------------------------------- */

static struct watch *watch_of(struct epoll *e, int fd)
{
    if (fd < 0)
        rb_raise(rb_eArgError, "a negative descriptor");
    if ((unsigned)fd >= e->nwatches) {
        unsigned before = e->nwatches;
        e->watches = room(e->watches, &e->nwatches, fd + 1, sizeof *e->watches);
        memset(e->watches + before, 0, (e->nwatches - before) * sizeof *e->watches);
    }
    return &e->watches[fd];
}

/* Arms fd one-shot for what its waiters poll for. A descriptor closed and
 * reopened under the same number has left the set (ENOENT: add it again);
 * one epoll cannot watch (EPERM: a regular file) is always ready, as
 * poll(2) says; any other error completes the waiters with it. */
static void arm(struct epoll *e, int fd)
{
    struct watch *w = &e->watches[fd];
    unsigned events = 0;
    for (unsigned i = 0; i < w->count; i++)
        events |= w->waiters[i].events;
    if (!events)
        return;
    struct epoll_event ev = {.events = events | EPOLLONESHOT, .data.fd = fd};
    int rc = epoll_ctl(e->fd, w->added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
    e->ctls++;
    if (rc < 0 && (errno == ENOENT || errno == EEXIST)) {
        rc = epoll_ctl(e->fd, errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
        e->ctls++;
    }
    w->added = rc == 0;
    if (rc == 0)
        return;
    int error = errno;
    for (unsigned i = 0; i < w->count; i++)
        complete(e, w->waiters[i].op, error == EPERM ? (int)w->waiters[i].events : -error);
    w->count = 0;
}

/* Completes fd's waiters for which events came, and re-arms it for the rest. */
static void dispatch(struct epoll *e, int fd, unsigned events)
{
    struct watch *w = &e->watches[fd];
    unsigned kept = 0;
    for (unsigned i = 0; i < w->count; i++) {
        struct waiter waiter = w->waiters[i];
        unsigned seen = events & (waiter.events | EPOLLERR | EPOLLHUP);
        if (seen)
            complete(e, waiter.op, (int)seen);
        else
            w->waiters[kept++] = waiter;
    }
    w->count = kept;
    arm(e, fd);
}

/* ---- the back end ---------------------------------------------------------- */

/* entries is the ring's size, unused here. */
static void *set_open(unsigned entries)
{
    struct epoll *e = ZALLOC(struct epoll);
    e->fd = epoll_create1(EPOLL_CLOEXEC);
    if (e->fd < 0) {
        xfree(e);
        rb_sys_fail("epoll_create1");
    }
    return e;
}

static void set_close(void *p)
{
    struct epoll *e = p;
    close(e->fd);
    for (unsigned i = 0; i < e->nwatches; i++)
        xfree(e->watches[i].waiters);
    xfree(e->watches);
    xfree(e->timers);
    xfree(e->done);
    xfree(e);
}

static void set_poll(void *p, struct op *op, int fd, unsigned events)
{
    struct epoll *e = p;
    struct watch *w = watch_of(e, fd);
    w->waiters = room(w->waiters, &w->capacity, w->count + 1, sizeof *w->waiters);
    w->waiters[w->count++] = (struct waiter){op, events};
    arm(e, fd);
}

static void set_timeout(void *p, struct op *op, const struct __kernel_timespec *ts)
{
    struct epoll *e = p;
    e->timers = room(e->timers, &e->timers_capacity, e->ntimers + 1, sizeof *e->timers);
    e->timers[e->ntimers] = (struct timer){now_ns() + ts->tv_sec * 1000000000LL + ts->tv_nsec, op};
    sift_up(e, e->ntimers++);
}

static void set_cancel(void *p, struct op *op)
{
    struct epoll *e = p;
    for (unsigned i = 0; i < e->ntimers; i++)
        if (e->timers[i].op == op) {
            timer_remove(e, i);
            complete(e, op, -ECANCELED);
            return;
        }
    for (unsigned fd = 0; fd < e->nwatches; fd++) {
        struct watch *w = &e->watches[fd];
        for (unsigned i = 0; i < w->count; i++)
            if (w->waiters[i].op == op) {
                w->waiters[i] = w->waiters[--w->count];
                complete(e, op, -ECANCELED);
                return;
            }
    }
}

struct wait_args {
    int epfd;
    struct timespec *timeout;   /* NULL: until an event */
    struct epoll_event events[EVENTS_PER_WAIT];
    int n;
};

static void *set_wait_nogvl(void *p)
{
    struct wait_args *a = p;
    a->n = epoll_pwait2(a->epfd, a->events, EVENTS_PER_WAIT, a->timeout, NULL);
    return NULL;
}

/* If blocking and nothing has completed, waits for an event or the nearest
 * timeout; hands every completion to the core, those it adds too. */
static void set_wait(void *p, struct core *core, bool blocking)
{
    struct epoll *e = p;
    expire(e);
    struct timespec timeout = {0, 0};
    struct wait_args *a = ALLOCA_N(struct wait_args, 1);
    a->epfd = e->fd;
    a->timeout = &timeout;
    if (blocking && e->next_done == e->ndone) {
        if (e->ntimers) {
            long long left = e->timers[0].due - now_ns();
            left = left > 0 ? left : 0;
            timeout = (struct timespec){left / 1000000000, left % 1000000000};
        } else {
            a->timeout = NULL;
        }
    }
    rb_thread_call_without_gvl(set_wait_nogvl, a, RUBY_UBF_IO, NULL);
    e->waits++;
    if (a->n < 0 && errno != EINTR)
        rb_sys_fail("epoll_pwait2");
    for (int i = 0; i < a->n; i++)
        dispatch(e, a->events[i].data.fd, a->events[i].events);
    expire(e);
    while (e->next_done < e->ndone) {
        struct done d = e->done[e->next_done++];
        e->completions++;
        core_complete(core, d.op, d.result);
    }
    e->ndone = e->next_done = 0;
}

static VALUE set_counts(const void *p)
{
    const struct epoll *e = p;
    static const char *const names[] = {"waits", "ctls", "completions"};
    const unsigned long long counts[] = {e->waits, e->ctls, e->completions};
    return counts_hash(names, counts, 3);
}

const struct backend epoll_backend = {
    .open = set_open,
    .close = set_close,
    .transfer = NULL,
    .poll = set_poll,
    .timeout = set_timeout,
    .cancel = set_cancel,
    .wait = set_wait,
    .counts = set_counts,
};

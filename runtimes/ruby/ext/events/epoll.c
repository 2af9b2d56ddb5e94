/* Concbench::Epoll: Concbench::Ring's interface (ring.c) on epoll, so that
 * one fiber scheduler (runtimes/ruby/scheduler.rb) runs on either. Polls and
 * timeouts are operations submitted with an id that complete in #wait, as on
 * the ring; reads and writes are not operations here but calls made at once
 * (#read_now, #write_now), which the scheduler makes again after a poll when
 * they would block: the way an epoll loop does them.
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
    unsigned long long id;
    unsigned events;
};

struct watch {   /* one descriptor's waiters */
    struct waiter *waiters;
    unsigned count, capacity;
    bool added;   /* in the epoll set (perhaps disarmed) */
};

struct timer {
    long long due;   /* CLOCK_MONOTONIC, ns */
    unsigned long long id;
};

struct done {
    unsigned long long id;
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

static void set_free(void *p)
{
    struct epoll *e = p;
    if (e->fd >= 0)
        close(e->fd);
    for (unsigned i = 0; i < e->nwatches; i++)
        xfree(e->watches[i].waiters);
    xfree(e->watches);
    xfree(e->timers);
    xfree(e->done);
    xfree(e);
}

static size_t set_size(const void *p)
{
    const struct epoll *e = p;
    return sizeof *e + e->nwatches * sizeof *e->watches + e->timers_capacity * sizeof *e->timers +
           e->done_capacity * sizeof *e->done;
}

static const rb_data_type_t set_type = {
    .wrap_struct_name = "Concbench::Epoll",
    .function = {.dfree = set_free, .dsize = set_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE set_alloc(VALUE klass)
{
    struct epoll *e;
    VALUE self = TypedData_Make_Struct(klass, struct epoll, &set_type, e);
    e->fd = -1;
    return self;
}

static struct epoll *get_set(VALUE self)
{
    struct epoll *e;
    TypedData_Get_Struct(self, struct epoll, &set_type, e);
    if (e->fd < 0)
        rb_raise(rb_eIOError, "the epoll set is closed");
    return e;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void complete(struct epoll *e, unsigned long long id, int result)
{
    e->done = room(e->done, &e->done_capacity, e->ndone + 1, sizeof *e->done);
    e->done[e->ndone++] = (struct done){id, result};
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
        complete(e, e->timers[0].id, -ETIME);
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
        complete(e, w->waiters[i].id, error == EPERM ? (int)w->waiters[i].events : -error);
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
            complete(e, waiter.id, (int)seen);
        else
            w->waiters[kept++] = waiter;
    }
    w->count = kept;
    arm(e, fd);
}

/* ---- methods ------------------------------------------------------------ */

/* Epoll.new(entries): entries is the ring's size, unused here. */
static VALUE set_initialize(VALUE self, VALUE entries)
{
    struct epoll *e;
    TypedData_Get_Struct(self, struct epoll, &set_type, e);
    e->fd = epoll_create1(EPOLL_CLOEXEC);
    if (e->fd < 0)
        rb_sys_fail("epoll_create1");
    return self;
}

/* #poll(id, fd, events): one-shot poll; completes with the events seen. */
static VALUE set_poll(VALUE self, VALUE id, VALUE fd, VALUE events)
{
    struct epoll *e = get_set(self);
    int n = NUM2INT(fd);
    struct watch *w = watch_of(e, n);
    w->waiters = room(w->waiters, &w->capacity, w->count + 1, sizeof *w->waiters);
    w->waiters[w->count++] = (struct waiter){NUM2ULL(id), NUM2UINT(events)};
    arm(e, n);
    return self;
}

/* #timeout(id, ns): completes with -ETIME after ns nanoseconds. */
static VALUE set_timeout(VALUE self, VALUE id, VALUE ns)
{
    struct epoll *e = get_set(self);
    e->timers = room(e->timers, &e->timers_capacity, e->ntimers + 1, sizeof *e->timers);
    e->timers[e->ntimers] = (struct timer){now_ns() + NUM2LL(ns), NUM2ULL(id)};
    sift_up(e, e->ntimers++);
    return self;
}

/* #cancel(id, target): the poll or timeout submitted as target completes
 * with -ECANCELED, as on the ring, unless it has completed already. */
static VALUE set_cancel(VALUE self, VALUE id, VALUE target)
{
    struct epoll *e = get_set(self);
    unsigned long long wanted = NUM2ULL(target);
    for (unsigned i = 0; i < e->ntimers; i++)
        if (e->timers[i].id == wanted) {
            timer_remove(e, i);
            complete(e, wanted, -ECANCELED);
            return self;
        }
    for (unsigned fd = 0; fd < e->nwatches; fd++) {
        struct watch *w = &e->watches[fd];
        for (unsigned i = 0; i < w->count; i++)
            if (w->waiters[i].id == wanted) {
                w->waiters[i] = w->waiters[--w->count];
                complete(e, wanted, -ECANCELED);
                return self;
            }
    }
    return self;
}

/* #read_now(fd, buffer, offset, length, position): read(2) into
 * buffer[offset, length] at once, or pread(2) at the file's position if not
 * -1; the bytes read, or -errno (-EAGAIN: poll, then again). */
static VALUE set_read_now(VALUE self, VALUE fd, VALUE buffer, VALUE offset, VALUE length, VALUE position)
{
    unsigned count;
    char *at = buffer_span(buffer, true, offset, length, &count);
    off_t from = NUM2OFFT(position);
    ssize_t n = from < 0 ? read(NUM2INT(fd), at, count) : pread(NUM2INT(fd), at, count, from);
    return SSIZET2NUM(n < 0 ? -errno : n);
}

/* #write_now(fd, buffer, offset, length, position): write(2) of
 * buffer[offset, length] at once, or pwrite(2) at the file's position if
 * not -1; the bytes written, or -errno. */
static VALUE set_write_now(VALUE self, VALUE fd, VALUE buffer, VALUE offset, VALUE length, VALUE position)
{
    unsigned count;
    const char *at = buffer_span(buffer, false, offset, length, &count);
    off_t from = NUM2OFFT(position);
    ssize_t n = from < 0 ? write(NUM2INT(fd), at, count) : pwrite(NUM2INT(fd), at, count, from);
    return SSIZET2NUM(n < 0 ? -errno : n);
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

/* #wait(blocking) { |id, result| }: if blocking and nothing has completed,
 * waits (without the GVL) for an event or the nearest timeout; yields each
 * completion, taken from the list first (the block may raise). */
static VALUE set_wait(VALUE self, VALUE blocking)
{
    struct epoll *e = get_set(self);
    expire(e);
    struct timespec timeout = {0, 0};
    struct wait_args *a = ALLOCA_N(struct wait_args, 1);
    a->epfd = e->fd;
    a->timeout = &timeout;
    if (RTEST(blocking) && e->next_done == e->ndone) {
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
    while (e->fd >= 0 && e->next_done < e->ndone) {
        struct done d = e->done[e->next_done++];
        e->completions++;
        rb_yield_values(2, ULL2NUM(d.id), INT2NUM(d.result));
    }
    if (e->next_done == e->ndone)
        e->ndone = e->next_done = 0;
    return Qnil;
}

/* #counts: {waits:, ctls:, completions:} so far, closed or not. */
static VALUE set_counts(VALUE self)
{
    struct epoll *e;
    TypedData_Get_Struct(self, struct epoll, &set_type, e);
    static const char *const names[] = {"waits", "ctls", "completions"};
    const unsigned long long counts[] = {e->waits, e->ctls, e->completions};
    return counts_hash(names, counts, 3);
}

static VALUE set_close(VALUE self)
{
    struct epoll *e;
    TypedData_Get_Struct(self, struct epoll, &set_type, e);
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
    return Qnil;
}

void init_epoll(VALUE concbench)
{
    VALUE epoll = rb_define_class_under(concbench, "Epoll", rb_cObject);
    rb_define_alloc_func(epoll, set_alloc);
    rb_define_method(epoll, "initialize", set_initialize, 1);
    rb_define_method(epoll, "poll", set_poll, 3);
    rb_define_method(epoll, "timeout", set_timeout, 2);
    rb_define_method(epoll, "cancel", set_cancel, 2);
    rb_define_method(epoll, "read_now", set_read_now, 5);
    rb_define_method(epoll, "write_now", set_write_now, 5);
    rb_define_method(epoll, "wait", set_wait, 1);
    rb_define_method(epoll, "counts", set_counts, 0);
    rb_define_method(epoll, "close", set_close, 0);
}

/* Concbench::Core: the Ruby runtime's fiber scheduler (scheduler.rb's
 * UringScheduler and EpollScheduler) in C, after UringMachine's design: the
 * waiting fibers and the loop that reaps completions and resumes them, on
 * one of two back ends (events.h): io_uring (ring.c) or epoll (epoll.c),
 * so that the uring and epoll rows differ in their event source only. Its
 * methods are the Fiber::Scheduler hooks themselves, and the direct API the
 * uring_direct row calls (read, write, sleep, and the Mutex and Queue
 * below, whose waiters are fibers parked here).
 *
 * An operation is a struct op, taken from the core's free list (no Ruby
 * object per operation): the waiting fiber, the result, and whatever the
 * kernel uses while it runs (the IO::Buffer, a timespec). Its address names
 * it to the back end. A fiber that must wait hands one to the back end,
 * yields to the loop (#run, on the thread's root fiber) and, resumed, takes
 * the result and gives the op back. The loop has the back end submit what
 * was prepared and wait for completions without the GVL (on io_uring, one
 * io_uring_enter for both), moves each completed op to the ready list, and
 * resumes the ready ops' fibers in order. Each turn of the loop resumes the
 * ops that were ready when it began; those made ready meanwhile (a fiber's
 * #pass, a hand-off) wait for the next turn, and between turns the back end
 * is asked for its completions without blocking, as async's run_once does:
 * so a yield lets the loop turn, and the event source is polled while
 * fibers keep yielding. On io_uring reads and writes are
 * operations; on epoll the core makes them at once, and polls when they
 * would block. Fibers blocked on a stock Mutex, Queue or ConditionVariable
 * (#block) are in a table by fiber; #unblock moves them to the ready list,
 * and from another thread also writes to an eventfd the loop always polls.
 *
 * GC safety: every op in flight or ready is on one of the core's lists, and
 * the core marks their fibers, buffers and exceptions, so that a fiber
 * nobody else holds, or a buffer its fiber has dropped, lives as long as the
 * kernel may write into it. Cancellation: an exception raised into a
 * waiting fiber (Timeout's, through #timeout_after) cancels its op and
 * waits for the op's completion before it goes on, since the buffer may be
 * in the kernel's hands; an op nobody waits for any more (a cancelled alarm
 * or timer) stays on the list until its completion frees it. A fiber is
 * resumed for an op only from the ready list, which an op leaves when its
 * fiber takes it back: a stray resume or a second wake-up finds nothing. */
#include "events.h"

#include <errno.h>
#include <poll.h>
#include <ruby/fiber/scheduler.h>
#include <ruby/st.h>
#include <ruby/version.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum kind {
    OP_IO,      /* a read, write or poll */
    OP_SLEEP,   /* a timeout the fiber waits for */
    OP_BLOCK,   /* not the kernel's: a fiber blocked until #unblock (or a mutex's or queue's hand-off) */
    OP_PASS,    /* not the kernel's: a fiber waiting for the loop's next turn */
    OP_TIMER,   /* a block's or a poll's timeout: wakes the block with false, cancels the poll */
    OP_ALARM,   /* #timeout_after's: raises into the fiber */
};

enum place { NOWHERE, IN_FLIGHT, READY, BLOCKED, PARKED };   /* PARKED: on a Mutex's or Queue's waiters */

struct op {
    struct op *prev, *next;   /* on the core's list for its place, or its free list */
    enum kind kind;
    enum place place;
    bool done;                /* completed, or woken */
    int result;
    VALUE fiber;              /* resumed when done; Qnil once nobody waits */
    VALUE buffer;             /* kept alive while the kernel may use its memory */
    VALUE exception, message; /* an alarm's */
    struct op *peer;          /* a block's or a poll's timer, and the timer's block or poll */
    struct __kernel_timespec ts;
};

struct core {
    const struct backend *backend;
    void *events;               /* the back end's state; NULL once closed */
    unsigned awaited;           /* ops in flight that a fiber waits for */
    unsigned parked;            /* fibers waiting on a Mutex or a Queue */
    struct op flight, ready;    /* list heads */
    struct op turn;             /* the ready ops this turn resumes: those ready when it began */
    struct op *free;
    st_table *blocked;          /* fiber => its OP_BLOCK */
    int wake;                   /* eventfd: #unblock from another thread */
    struct op wakeup;           /* its poll */
    VALUE thread;               /* the loop's */
    VALUE counts;               /* the back end's, once closed */
};

static ID id_raise_deadlock;

enum { TAG_RAISE = 6 };   /* the tag rb_protect reports for an exception (Ruby's vm_core.h) */

/* ---- lists ------------------------------------------------------------- */

static void list_init(struct op *head) { head->prev = head->next = head; }

static bool list_empty(const struct op *head) { return head->next == head; }

static void list_push(struct op *head, struct op *op)
{
    op->prev = head->prev;
    op->next = head;
    head->prev->next = op;
    head->prev = op;
}

/* Moves every op of from to the end of to. */
static void list_splice(struct op *to, struct op *from)
{
    if (list_empty(from))
        return;
    from->next->prev = to->prev;
    to->prev->next = from->next;
    from->prev->next = to;
    to->prev = from->prev;
    list_init(from);
}

static void list_remove(struct op *op)
{
    op->prev->next = op->next;
    op->next->prev = op->prev;
    op->prev = op->next = NULL;
}

/* Moves an op to a list or the table of blocked fibers, or off them
 * (NOWHERE); PARKED ops are pushed on their waiters list by park(). */
static void place(struct core *r, struct op *op, enum place where)
{
    if (op->place == PARKED)
        r->parked--;
    if (op->place == IN_FLIGHT || op->place == READY || op->place == PARKED)
        list_remove(op);
    else if (op->place == BLOCKED) {
        st_data_t key = (st_data_t)op->fiber;
        st_delete(r->blocked, &key, NULL);
    }
    op->place = where;
    if (where == IN_FLIGHT)
        list_push(&r->flight, op);
    else if (where == READY)
        list_push(&r->ready, op);
    else if (where == BLOCKED)
        st_insert(r->blocked, (st_data_t)op->fiber, (st_data_t)op);
}

/* ---- the core object ----------------------------------------------------- */

static void mark_list(const struct op *head)
{
    for (const struct op *op = head->next; op != head; op = op->next) {
        rb_gc_mark(op->fiber);
        rb_gc_mark(op->buffer);
        rb_gc_mark(op->exception);
        rb_gc_mark(op->message);
    }
}

static void core_mark(void *p)
{
    struct core *r = p;
    if (!r->flight.next)
        return;   /* not initialized */
    mark_list(&r->flight);
    mark_list(&r->ready);
    mark_list(&r->turn);
    if (r->blocked)
        rb_mark_set(r->blocked);
    rb_gc_mark(r->thread);
    rb_gc_mark(r->counts);
}

static void free_list(struct op *head)
{
    while (!list_empty(head)) {
        struct op *op = head->next;
        list_remove(op);
        xfree(op);
    }
}

/* Closes the back end: its ops are cancelled with it. */
static void core_exit(struct core *r)
{
    if (!r->events)
        return;
    r->backend->close(r->events);
    r->events = NULL;
    close(r->wake);
    free_list(&r->flight);
}

static int free_blocked(st_data_t fiber, st_data_t op, st_data_t unused)
{
    xfree((struct op *)op);
    return ST_CONTINUE;
}

static void core_free(void *p)
{
    struct core *r = p;
    core_exit(r);
    if (r->flight.next) {   /* ops of fibers that will never run again */
        free_list(&r->ready);
        free_list(&r->turn);
    }
    if (r->blocked)
        st_foreach(r->blocked, free_blocked, 0);
    while (r->free) {
        struct op *op = r->free;
        r->free = op->next;
        xfree(op);
    }
    if (r->blocked)
        st_free_table(r->blocked);
    xfree(r);
}

static size_t core_size(const void *p)
{
    (void)p;
    return sizeof(struct core);
}

static const rb_data_type_t core_type = {
    .wrap_struct_name = "Concbench::Core",
    .function = {.dmark = core_mark, .dfree = core_free, .dsize = core_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE core_alloc(VALUE klass)
{
    struct core *r;
    VALUE self = TypedData_Make_Struct(klass, struct core, &core_type, r);
    r->thread = r->counts = Qnil;
    return self;
}

static struct core *get_core(VALUE self)
{
    struct core *r;
    TypedData_Get_Struct(self, struct core, &core_type, r);
    if (!r->events)
        rb_raise(rb_eIOError, "the scheduler is closed");
    return r;
}

/* ---- submission ---------------------------------------------------------- */

/* An op from the free list, for the current fiber. */
static struct op *op_new(struct core *r, enum kind kind)
{
    struct op *op = r->free;
    if (op)
        r->free = op->next;
    else
        op = ALLOC(struct op);
    *op = (struct op){.kind = kind, .place = NOWHERE, .fiber = rb_fiber_current(),
                      .buffer = Qnil, .exception = Qnil, .message = Qnil};
    return op;
}

/* Gives an op back, off whichever list or table holds it. */
static void op_release(struct core *r, struct op *op)
{
    place(r, op, NOWHERE);
    op->next = r->free;
    r->free = op;
}

/* An op handed to the back end: on the list, counted. */
static void in_flight(struct core *r, struct op *op)
{
    place(r, op, IN_FLIGHT);
    if (op->fiber != Qnil)
        r->awaited++;
}

/* A timeout of the op's own: ts lives as long as the op. */
static void start_timeout(struct core *r, struct op *op)
{
    r->backend->timeout(r->events, op, &op->ts);
    in_flight(r, op);
}

static void set_timespec(struct op *op, double seconds)
{
    long long ns = (long long)(seconds * 1e9 + 0.5);
    if (ns < 0)
        ns = 0;
    op->ts = (struct __kernel_timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* Asks the back end to cancel an op in flight; its completion comes anyway. */
static void cancel(struct core *r, struct op *op)
{
    r->backend->cancel(r->events, op);
}

/* An op in flight that nobody waits for any more: freed by its completion. */
static void orphan(struct core *r, struct op *op)
{
    cancel(r, op);
    op->fiber = Qnil;
    r->awaited--;
}

/* ---- waiting --------------------------------------------------------------- */

static VALUE yield_fiber(VALUE unused)
{
    return rb_fiber_yield(0, NULL);
}

/* Suspends the current fiber until op is done, gives it back and returns
 * its result. An exception raised into the fiber meanwhile stops the op
 * (cancels it in the kernel, or takes a block off the table) and, once the
 * op is done, is raised on. */
static int await(struct core *r, struct op *op)
{
    int state = 0;
    VALUE error = Qnil;
    while (!op->done) {
        int raised = 0;
        rb_protect(yield_fiber, Qnil, &raised);
        if (!raised || state)
            continue;   /* resumed by something else (the op goes on), or a second exception (the first wins) */
        state = raised;
        if (state == TAG_RAISE) {
            error = rb_errinfo();
            rb_set_errinfo(Qnil);
        }
        if (op->place == IN_FLIGHT)
            cancel(r, op);
        else if (!op->done) {   /* blocked, or passing: nothing of the kernel's to wait for */
            op->done = true;
            op->result = 0;
        }
    }
    if (op->peer) {   /* a block's timer that has not gone off */
        op->peer->peer = NULL;
        orphan(r, op->peer);
    }
    int result = op->result;
    op_release(r, op);
    if (state == TAG_RAISE)
        rb_exc_raise(error);
    if (state)
        rb_jump_tag(state);
    return result;
}

/* ---- the loop ---------------------------------------------------------------- */

static void rearm_wakeup(struct core *r)
{
    r->backend->poll(r->events, &r->wakeup, r->wake, POLLIN);
}

/* An op's completion, from the back end's wait: its fiber's op goes to
 * the ready list; a timer wakes its block or cancels its poll; an op nobody
 * waits for is given back. */
void core_complete(struct core *r, struct op *op, int result)
{
    if (!op)
        return;   /* a cancellation's own completion */
    if (op == &r->wakeup) {
        uint64_t count;
        if (read(r->wake, &count, sizeof count) < 0 && errno != EAGAIN)
            rb_bug("concbench: the wake-up eventfd's read failed: %s", strerror(errno));
        rearm_wakeup(r);
        return;
    }
    place(r, op, NOWHERE);
    if (op->fiber == Qnil) {
        op_release(r, op);
        return;
    }
    r->awaited--;
    op->result = result;
    if (op->kind == OP_TIMER) {
        struct op *waiting = op->peer;
        if (waiting) {
            waiting->peer = NULL;
            if (waiting->place == BLOCKED) {
                waiting->result = 0;
                waiting->done = true;
                place(r, waiting, READY);
            }
            else if (waiting->place == IN_FLIGHT)
                cancel(r, waiting);   /* a poll: it completes with -ECANCELED */
        }
        op_release(r, op);
        return;
    }
    op->done = op->kind != OP_ALARM;   /* an alarm is done once raised */
    place(r, op, READY);
}

/* One turn: resumes the fibers of the ops ready now, in order; an alarm
 * raises into its fiber. Ops made ready meanwhile wait for the next turn. */
static void resume_ready(struct core *r)
{
    list_splice(&r->turn, &r->ready);
    while (!list_empty(&r->turn)) {
        struct op *op = r->turn.next;
        VALUE fiber = op->fiber;
        place(r, op, NOWHERE);
        op->done = true;   /* a pass's and an alarm's only now */
        if (op->kind == OP_ALARM) {   /* #timeout_after gives it back */
            VALUE raise[2] = {op->exception, op->message};
            if (RTEST(rb_fiber_alive_p(fiber)))
                rb_fiber_raise(fiber, 2, raise);
        }
        else
            rb_fiber_resume(fiber, 0, NULL);
    }
}

/* Fibers are blocked, nothing is in flight or ready, and no other thread
 * lives to unblock them. */
static bool deadlocked(struct core *r)
{
    return !r->awaited && list_empty(&r->ready) && (r->blocked->num_entries || r->parked) && rb_thread_alone();
}

/* #run: turns the loop until no fiber is ready or waits for an operation
 * or a wake-up; between turns the back end blocks only if none is ready. */
static VALUE core_run(VALUE self)
{
    struct core *r = get_core(self);
    while (true) {
        resume_ready(r);
        if (!r->events)
            return Qnil;
        bool idle = list_empty(&r->ready);
        if (idle && !r->awaited && !r->blocked->num_entries && !r->parked)
            return Qnil;
        if (deadlocked(r))
            rb_funcall(self, id_raise_deadlock, 1, ULONG2NUM(r->blocked->num_entries + r->parked));
        r->backend->wait(r->events, r, idle);
    }
}

/* #close: runs the loop to its end, then closes the back end. */
static VALUE core_close(VALUE self)
{
    struct core *r;
    TypedData_Get_Struct(self, struct core, &core_type, r);
    if (!r->events)
        return Qnil;
    core_run(self);
    r->counts = r->backend->counts(r->events);
    core_exit(r);
    return Qnil;
}

/* Core.new(backend, entries): backend :uring or :epoll, with room for
 * entries operations at once. */
static VALUE core_initialize(VALUE self, VALUE name, VALUE entries)
{
    struct core *r;
    TypedData_Get_Struct(self, struct core, &core_type, r);
    ID backend = rb_sym2id(name);
    if (backend == rb_intern("uring"))
        r->backend = &uring_backend;
    else if (backend == rb_intern("epoll"))
        r->backend = &epoll_backend;
    else
        rb_raise(rb_eArgError, "no back end %" PRIsVALUE " (uring or epoll)", name);
    list_init(&r->flight);
    list_init(&r->ready);
    list_init(&r->turn);
    r->blocked = st_init_numtable();
    int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0)
        rb_sys_fail("eventfd");
    r->events = r->backend->open(NUM2UINT(entries));   /* raises if it cannot (no io_uring, say) */
    r->wake = wake;
    r->thread = rb_thread_current();
    rearm_wakeup(r);
    return self;
}

/* #counts: what the back end has done so far, closed or not: the ring's
 * {submissions:, enters:, completions:}, epoll's {waits:, ctls:,
 * completions:}. */
static VALUE core_counts(VALUE self)
{
    struct core *r;
    TypedData_Get_Struct(self, struct core, &core_type, r);
    return r->events ? r->backend->counts(r->events) : r->counts;
}

/* ---- reads, writes, polls ------------------------------------------------------ */

/* One read or write of count bytes at base (of buffer, which stays alive
 * meanwhile), at the file's position unless -1: the back end's operation,
 * or, on epoll, the system call made at once; the bytes moved, or -errno
 * (-EAGAIN: poll, then again). */
static int transfer_once(struct core *r, int fd, VALUE buffer, bool reading, char *base, unsigned count, off_t position)
{
    if (!r->backend->transfer) {
        ssize_t n = reading ? (position < 0 ? read(fd, base, count) : pread(fd, base, count, position))
                            : (position < 0 ? write(fd, base, count) : pwrite(fd, base, count, position));
        return n < 0 ? -errno : (int)n;
    }
    struct op *op = op_new(r, OP_IO);
    op->buffer = buffer;
    r->backend->transfer(r->events, op, fd, reading, base, count, position);
    in_flight(r, op);
    return await(r, op);
}

/* A timer for op (a block or a poll) that wakes it after seconds. */
static void limit(struct core *r, struct op *op, double seconds)
{
    struct op *timer = op_new(r, OP_TIMER);
    set_timespec(timer, seconds);
    start_timeout(r, timer);
    timer->peer = op;
    op->peer = timer;
}

/* A one-shot poll for events, which gives up after timeout seconds unless
 * nil; the events seen, 0 if the time ran out, or -errno. */
static int poll_once(struct core *r, int fd, unsigned events, VALUE timeout)
{
    struct op *op = op_new(r, OP_IO);
    r->backend->poll(r->events, op, fd, events);
    in_flight(r, op);
    if (!NIL_P(timeout))
        limit(r, op, NUM2DBL(timeout));
    int result = await(r, op);
    return result == -ECANCELED ? 0 : result;
}

/* Reads or writes at least length bytes (one transfer if length is 0) of
 * buffer[offset..], at the file's position from on unless it is -1: a
 * descriptor that would block (non-blocking, as Ruby opens them) is polled,
 * then tried again. The bytes moved, 0 at end of file, or -errno. */
static VALUE transfer(struct core *r, VALUE io, VALUE buffer, bool reading, VALUE length, VALUE offset, off_t from)
{
    int fd = rb_io_descriptor(io);
    size_t least = NUM2SIZET(length), at = NUM2SIZET(offset), done = 0;
    while (true) {
        void *base;
        size_t size;
        if (reading)
            rb_io_buffer_get_bytes_for_writing(buffer, &base, &size);
        else
            rb_io_buffer_get_bytes_for_reading(buffer, (const void **)&base, &size);
        if (at + done > size)
            rb_raise(rb_eArgError, "past the buffer's end");
        size_t left = size - at - done;
        int result = transfer_once(r, fd, buffer, reading, (char *)base + at + done, left > UINT_MAX ? UINT_MAX : (unsigned)left,
                                   from < 0 ? -1 : from + (off_t)done);
        if (result == -EAGAIN) {
            result = poll_once(r, fd, reading ? POLLIN : POLLOUT, Qnil);
            if (result < 0)
                return INT2NUM(result);
            continue;
        }
        if (result < 0)
            return INT2NUM(result);
        done += result;
        if (result == 0 || done >= least)
            return SIZET2NUM(done);
    }
}

/* #io_read(io, buffer, length, offset = 0): Ruby 3.2 and later pass the
 * offset into the buffer, 3.1 does not. */
static VALUE core_io_read(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    return transfer(get_core(self), argv[0], argv[1], true, argv[2], argc > 3 ? argv[3] : INT2FIX(0), -1);
}

/* #io_write(io, buffer, length, offset = 0) */
static VALUE core_io_write(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    return transfer(get_core(self), argv[0], argv[1], false, argv[2], argc > 3 ? argv[3] : INT2FIX(0), -1);
}

#if RUBY_API_VERSION_CODE >= 30200
/* Exported by every CRuby, though in no public header. */
int ruby_thread_has_gvl_p(void);

/* #io_pread(io, buffer, from, length, offset) and #io_pwrite: IO#pread and
 * IO#pwrite call them from Ruby 3.3 on (3.1's hooks of those names take
 * other arguments). Ruby 3.4.5 calls them from inside IO#pread's and
 * IO#pwrite's blocking region, without the GVL (io.c: internal_pwrite_func
 * under rb_io_blocking_region_wait), where a fiber must not yield nor Ruby
 * run: the call is then made at once, as Ruby would make it. IO::Buffer's
 * pread and pwrite call them with the GVL: through the back end. */
static VALUE positioned(VALUE self, VALUE io, VALUE buffer, bool reading, VALUE from, VALUE length, VALUE offset)
{
    if (!ruby_thread_has_gvl_p()) {
        void *base;
        size_t size;
        rb_io_buffer_get_bytes(buffer, &base, &size);
        size_t at = NUM2SIZET(offset);
        ssize_t n = at > size ? -1 : reading ? pread(rb_io_descriptor(io), (char *)base + at, size - at, NUM2OFFT(from))
                                             : pwrite(rb_io_descriptor(io), (char *)base + at, size - at, NUM2OFFT(from));
        return n < 0 ? INT2FIX(at > size ? -EINVAL : -errno) : SSIZET2NUM(n);
    }
    return transfer(get_core(self), io, buffer, reading, length, offset, NUM2OFFT(from));
}

static VALUE core_io_pread(VALUE self, VALUE io, VALUE buffer, VALUE from, VALUE length, VALUE offset)
{
    return positioned(self, io, buffer, true, from, length, offset);
}

static VALUE core_io_pwrite(VALUE self, VALUE io, VALUE buffer, VALUE from, VALUE length, VALUE offset)
{
    return positioned(self, io, buffer, false, from, length, offset);
}
#endif

/* #io_wait(io, events, timeout = nil): the events the descriptor is ready
 * for, or false if timeout seconds pass first. */
static VALUE core_io_wait(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 2, 3);
    int result = poll_once(get_core(self), rb_io_descriptor(argv[0]), NUM2UINT(argv[1]), argc > 2 ? argv[2] : Qnil);
    if (result == 0)
        return Qfalse;
    if (result < 0)
        rb_syserr_fail(-result, "poll");
    return INT2NUM(result);
}

/* The direct API (mechanism uring_direct): a fiber calls the core on a
 * descriptor, with no Ruby IO in between, as UringMachine's own API is used.
 * #read(fd, buffer, length): one read of up to length bytes into the
 * buffer; the bytes read, 0 at end of file. */
static VALUE core_read(VALUE self, VALUE fd, VALUE buffer, VALUE length)
{
    struct core *r = get_core(self);
    void *base;
    size_t size, n = NUM2SIZET(length);
    rb_io_buffer_get_bytes_for_writing(buffer, &base, &size);
    if (n > size || n > UINT_MAX)
        rb_raise(rb_eArgError, "past the buffer's end");
    int result = transfer_once(r, NUM2INT(fd), buffer, true, base, (unsigned)n, -1);
    if (result < 0)
        rb_syserr_fail(-result, "read");
    return INT2NUM(result);
}

/* #write(fd, buffer, length, position = -1): writes length bytes of the
 * buffer, at the file's position if one is given (a pwrite); length. */
static VALUE core_write(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    struct core *r = get_core(self);
    int fd = NUM2INT(argv[0]);
    VALUE buffer = argv[1];
    size_t n = NUM2SIZET(argv[2]), done = 0;
    off_t position = argc > 3 ? NUM2OFFT(argv[3]) : -1;
    while (done < n) {
        const void *base;
        size_t size;
        rb_io_buffer_get_bytes_for_reading(buffer, &base, &size);
        if (n > size)
            rb_raise(rb_eArgError, "past the buffer's end");
        size_t left = n - done;
        int result = transfer_once(r, fd, buffer, false, (char *)base + done, left > UINT_MAX ? UINT_MAX : (unsigned)left,
                                   position < 0 ? -1 : position + (off_t)done);
        if (result < 0)
            rb_syserr_fail(-result, "write");
        done += result;
    }
    return argv[2];
}

/* ---- time ---------------------------------------------------------------------- */

/* Suspends the fiber until #unblock or a hand-off (true), or, unless
 * timeout is nil, until timeout seconds pass (false). */
static bool block(struct core *r, VALUE timeout)
{
    struct op *op = op_new(r, OP_BLOCK);
    place(r, op, BLOCKED);
    if (!NIL_P(timeout))
        limit(r, op, NUM2DBL(timeout));
    return await(r, op);
}

/* #kernel_sleep(duration = nil) and #sleep(seconds): a timeout of the back end's;
 * without a duration, until #unblock. */
static VALUE core_kernel_sleep(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 0, 1);
    struct core *r = get_core(self);
    if (argc == 0 || NIL_P(argv[0])) {
        block(r, Qnil);
        return Qnil;
    }
    struct op *op = op_new(r, OP_SLEEP);
    set_timespec(op, NUM2DBL(argv[0]));
    start_timeout(r, op);
    await(r, op);
    return Qnil;
}

struct alarm {
    struct core *r;
    struct op *op;
    VALUE duration;
};

static VALUE alarm_body(VALUE p)
{
    return rb_yield(((struct alarm *)p)->duration);
}

/* The block has ended: an alarm still in the kernel is cancelled (freed by
 * its completion), one that went off but was not raised yet is dropped. */
static VALUE alarm_end(VALUE p)
{
    struct alarm *a = (struct alarm *)p;
    struct op *op = a->op;
    if (op->place == IN_FLIGHT)
        orphan(a->r, op);
    else
        op_release(a->r, op);
    return Qnil;
}

/* #timeout_after(duration, exception, message) { }: runs the block; if it
 * takes more than duration seconds, raises the exception in its fiber
 * wherever the fiber waits (Timeout.timeout). */
static VALUE core_timeout_after(VALUE self, VALUE duration, VALUE exception, VALUE message)
{
    struct core *r = get_core(self);
    struct op *op = op_new(r, OP_ALARM);
    op->exception = exception;
    op->message = message;
    set_timespec(op, NUM2DBL(duration));
    start_timeout(r, op);
    struct alarm a = {r, op, duration};
    return rb_ensure(alarm_body, (VALUE)&a, alarm_end, (VALUE)&a);
}

/* ---- Mutex, Queue, ConditionVariable ------------------------------------------------ */

/* #block(blocker, timeout = nil): true once unblocked, false if timeout
 * seconds passed first. */
static VALUE core_block(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    return block(get_core(self), argc > 1 ? argv[1] : Qnil) ? Qtrue : Qfalse;
}

/* #unblock(blocker, fiber): the fiber, if it is blocked here, is resumed by
 * the loop; a stale unblock (stock Queue and Mutex may wake a fiber that has
 * gone on) finds nothing. From another thread the loop is woken. */
static VALUE core_unblock(VALUE self, VALUE blocker, VALUE fiber)
{
    struct core *r;
    TypedData_Get_Struct(self, struct core, &core_type, r);
    if (!r->events)
        return Qnil;
    st_data_t found;
    if (st_lookup(r->blocked, (st_data_t)fiber, &found)) {
        struct op *op = (struct op *)found;
        op->result = 1;
        op->done = true;
        place(r, op, READY);
    }
    if (rb_thread_current() != r->thread)
        eventfd_write(r->wake, 1);
    return Qnil;
}

/* #pass: a Task's yield: the fiber goes on in the loop's next turn, after
 * the fibers ready now and a look at the back end's completions. */
static VALUE core_pass(VALUE self)
{
    struct core *r = get_core(self);
    struct op *op = op_new(r, OP_PASS);
    place(r, op, READY);
    await(r, op);
    return Qnil;
}

/* ---- the direct API's Mutex and Queue ------------------------------------------- */

/* A waiters list: fibers parked in C until a hand-off (unlock, push, pop)
 * moves them to the core's ready list. The list's owner marks them. */
static void mark_waiters(const struct op *head)
{
    for (const struct op *op = head->next; op != head; op = op->next)
        rb_gc_mark(op->fiber);
}

/* The current fiber's core: the thread's scheduler, which must be one. */
static struct core *current_core(void)
{
    return get_core(rb_fiber_scheduler_current());
}

/* Parks the current fiber on waiters until woken (true). */
static bool park(struct core *r, struct op *waiters)
{
    struct op *op = op_new(r, OP_BLOCK);
    op->place = PARKED;
    list_push(waiters, op);
    r->parked++;
    return await(r, op);
}

/* Wakes the first fiber parked on waiters, if any. */
static void wake_first(struct core *r, struct op *waiters)
{
    if (list_empty(waiters))
        return;
    struct op *op = waiters->next;
    op->result = 1;
    op->done = true;
    place(r, op, READY);
}

/* Concbench::Core::Mutex: a lock for fibers under a Core, with stock
 * Mutex's interface (try_lock, lock, unlock, synchronize) and its way, as
 * UM::Mutex's: unlock frees it and wakes the first waiter, which tries
 * again when it runs; the fiber that unlocked may take it again first, and
 * the waiter then waits again, last. (A hand-off to the waiter would be a
 * fair lock, another lock than the stock one the other rows use.) */
struct mutex {
    bool locked;
    VALUE owner;   /* the fiber holding it: only it may unlock, as stock Mutex */
    struct op waiters;
};

static void mutex_mark(void *p)
{
    struct mutex *m = p;
    rb_gc_mark(m->owner);
    mark_waiters(&m->waiters);
}

static size_t mutex_size(const void *p) { return sizeof(struct mutex); }

static const rb_data_type_t mutex_type = {
    .wrap_struct_name = "Concbench::Core::Mutex",
    .function = {.dmark = mutex_mark, .dfree = RUBY_TYPED_DEFAULT_FREE, .dsize = mutex_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE mutex_alloc(VALUE klass)
{
    struct mutex *m;
    VALUE self = TypedData_Make_Struct(klass, struct mutex, &mutex_type, m);
    m->owner = Qnil;
    list_init(&m->waiters);
    return self;
}

static struct mutex *get_mutex(VALUE self)
{
    struct mutex *m;
    TypedData_Get_Struct(self, struct mutex, &mutex_type, m);
    return m;
}

static VALUE mutex_try_lock(VALUE self)
{
    struct mutex *m = get_mutex(self);
    if (m->locked)
        return Qfalse;
    m->locked = true;
    m->owner = rb_fiber_current();
    return Qtrue;
}

static VALUE mutex_unlock(VALUE self)
{
    struct mutex *m = get_mutex(self);
    if (!m->locked)
        rb_raise(rb_eThreadError, "the mutex is not locked");
    if (m->owner != rb_fiber_current())   /* stock Mutex's check */
        rb_raise(rb_eThreadError, "Attempt to unlock a mutex which is locked by another thread/fiber");
    m->locked = false;
    m->owner = Qnil;
    if (!list_empty(&m->waiters))   /* current_core only then: it costs a look-up */
        wake_first(current_core(), &m->waiters);
    return self;
}

static VALUE mutex_wait(VALUE self)
{
    struct mutex *m = get_mutex(self);
    while (!RTEST(mutex_try_lock(self)))
        park(current_core(), &m->waiters);
    return self;
}

/* An exception raised into a fiber waiting for the lock (Timeout's): the
 * wake-up it may have been given goes to the next waiter if the lock is
 * free, so that none waits on for a lock nobody holds. */
static VALUE mutex_abandon(VALUE self, VALUE error)
{
    struct mutex *m = get_mutex(self);
    if (!m->locked)
        wake_first(current_core(), &m->waiters);
    rb_exc_raise(error);
    return Qnil;
}

static VALUE mutex_lock(VALUE self)
{
    if (!RTEST(mutex_try_lock(self)))
        rb_rescue2(mutex_wait, self, mutex_abandon, self, rb_eException, (VALUE)0);
    return self;
}

static VALUE mutex_synchronize(VALUE self)
{
    mutex_lock(self);
    return rb_ensure(rb_yield, Qnil, mutex_unlock, self);
}

/* Concbench::Core::Queue.new(capacity = 0): a FIFO for fibers under a Core,
 * bounded unless capacity is 0, as stock Queue's interface (push or <<,
 * pop, size, empty?). A push wakes the first fiber waiting to pop, a pop
 * the first waiting to push; a woken fiber looks again. */
struct queue {
    VALUE items;   /* an Array */
    long capacity;
    struct op poppers, pushers;
};

static void queue_mark(void *p)
{
    struct queue *q = p;
    rb_gc_mark(q->items);
    mark_waiters(&q->poppers);
    mark_waiters(&q->pushers);
}

static size_t queue_size(const void *p) { return sizeof(struct queue); }

static const rb_data_type_t queue_type = {
    .wrap_struct_name = "Concbench::Core::Queue",
    .function = {.dmark = queue_mark, .dfree = RUBY_TYPED_DEFAULT_FREE, .dsize = queue_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE queue_alloc(VALUE klass)
{
    struct queue *q;
    VALUE self = TypedData_Make_Struct(klass, struct queue, &queue_type, q);
    q->items = Qnil;
    list_init(&q->poppers);
    list_init(&q->pushers);
    return self;
}

static struct queue *get_queue(VALUE self)
{
    struct queue *q;
    TypedData_Get_Struct(self, struct queue, &queue_type, q);
    return q;
}

static VALUE queue_initialize(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 0, 1);
    struct queue *q = get_queue(self);
    RB_OBJ_WRITE(self, &q->items, rb_ary_new());
    q->capacity = argc ? NUM2LONG(argv[0]) : 0;
    return self;
}

static VALUE queue_push(VALUE self, VALUE value)
{
    struct queue *q = get_queue(self);
    while (q->capacity && RARRAY_LEN(q->items) >= q->capacity)
        park(current_core(), &q->pushers);
    rb_ary_push(q->items, value);
    if (!list_empty(&q->poppers))
        wake_first(current_core(), &q->poppers);
    return self;
}

static VALUE queue_pop(VALUE self)
{
    struct queue *q = get_queue(self);
    while (RARRAY_LEN(q->items) == 0)
        park(current_core(), &q->poppers);
    VALUE value = rb_ary_shift(q->items);
    if (!list_empty(&q->pushers))
        wake_first(current_core(), &q->pushers);
    return value;
}

static VALUE queue_length(VALUE self) { return LONG2NUM(RARRAY_LEN(get_queue(self)->items)); }

static VALUE queue_empty_p(VALUE self) { return RARRAY_LEN(get_queue(self)->items) ? Qfalse : Qtrue; }

void init_core(VALUE concbench)
{
    id_raise_deadlock = rb_intern("raise_deadlock");
    VALUE base = rb_const_get(concbench, rb_intern("Scheduler"));
    VALUE core = rb_define_class_under(concbench, "Core", base);
    rb_define_alloc_func(core, core_alloc);
    rb_define_method(core, "initialize", core_initialize, 2);
    rb_define_method(core, "run", core_run, 0);
    rb_define_method(core, "close", core_close, 0);
    rb_define_method(core, "counts", core_counts, 0);
    rb_define_method(core, "io_read", core_io_read, -1);
    rb_define_method(core, "io_write", core_io_write, -1);
#if RUBY_API_VERSION_CODE >= 30200   /* 3.1's hooks of these names take other arguments */
    rb_define_method(core, "io_pread", core_io_pread, 5);
    rb_define_method(core, "io_pwrite", core_io_pwrite, 5);
#endif
    rb_define_method(core, "io_wait", core_io_wait, -1);
    rb_define_method(core, "kernel_sleep", core_kernel_sleep, -1);
    rb_define_method(core, "timeout_after", core_timeout_after, 3);
    rb_define_method(core, "block", core_block, -1);
    rb_define_method(core, "unblock", core_unblock, 2);
    rb_define_method(core, "pass", core_pass, 0);
    rb_define_method(core, "read", core_read, 3);
    rb_define_method(core, "write", core_write, -1);
    rb_define_method(core, "sleep", core_kernel_sleep, -1);

    VALUE mutex = rb_define_class_under(core, "Mutex", rb_cObject);
    rb_define_alloc_func(mutex, mutex_alloc);
    rb_define_method(mutex, "try_lock", mutex_try_lock, 0);
    rb_define_method(mutex, "lock", mutex_lock, 0);
    rb_define_method(mutex, "unlock", mutex_unlock, 0);
    rb_define_method(mutex, "synchronize", mutex_synchronize, 0);

    VALUE queue = rb_define_class_under(core, "Queue", rb_cObject);
    rb_define_alloc_func(queue, queue_alloc);
    rb_define_method(queue, "initialize", queue_initialize, -1);
    rb_define_method(queue, "push", queue_push, 1);
    rb_define_method(queue, "<<", queue_push, 1);
    rb_define_method(queue, "pop", queue_pop, 0);
    rb_define_method(queue, "size", queue_length, 0);
    rb_define_method(queue, "empty?", queue_empty_p, 0);
}

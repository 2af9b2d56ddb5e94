/* Concbench::Ring: the core of the uring row's fiber scheduler
 * (scheduler.rb's UringScheduler), in C, after UringMachine's design: the
 * io_uring, the waiting fibers and the loop that reaps completions and
 * resumes them. Its methods are the Fiber::Scheduler hooks themselves, and
 * the direct API the uring_direct row calls (read, write, sleep, and the
 * Mutex and Queue below, whose waiters are fibers parked here).
 *
 * An operation is a struct op, taken from the ring's free list (no Ruby
 * object per operation): the waiting fiber, the result, and whatever the
 * kernel uses while it runs (the IO::Buffer, a timespec). Its address is
 * the entry's user data. A fiber that must wait submits one, yields to the
 * loop (#run, on the thread's root fiber) and, resumed, takes the result
 * and gives the op back. The loop submits what was prepared in one
 * io_uring_enter, waits for completions without the GVL, moves each
 * completed op to the ready list, and resumes the ready ops' fibers in
 * order. Fibers blocked on a Mutex, Queue or ConditionVariable (#block) are
 * in a table by fiber; #unblock moves them to the ready list, and from
 * another thread also writes to an eventfd the ring always polls.
 *
 * GC safety: every op in flight or ready is on one of the ring's lists, and
 * the ring marks their fibers, buffers and exceptions, so that a fiber
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
#include <liburing.h>
#include <poll.h>
#include <ruby/fiber/scheduler.h>
#include <ruby/st.h>
#include <sys/eventfd.h>
#include <unistd.h>

enum kind {
    OP_IO,      /* a read, write or poll */
    OP_SLEEP,   /* a timeout the fiber waits for */
    OP_BLOCK,   /* not the kernel's: a fiber blocked until #unblock (or a mutex's or queue's hand-off) */
    OP_PASS,    /* not the kernel's: a fiber letting the ready ones run first */
    OP_TIMER,   /* a block's timeout: wakes the block with false */
    OP_ALARM,   /* #timeout_after's: raises into the fiber */
};

enum place { NOWHERE, IN_FLIGHT, READY, BLOCKED, PARKED };   /* PARKED: on a Mutex's or Queue's waiters */

struct op {
    struct op *prev, *next;   /* on the ring's list for its place, or its free list */
    enum kind kind;
    enum place place;
    bool done;                /* completed, or woken */
    int result;
    VALUE fiber;              /* resumed when done; Qnil once nobody waits */
    VALUE buffer;             /* kept alive while the kernel may use its memory */
    VALUE exception, message; /* an alarm's */
    struct op *peer;          /* a block's timer, and the timer's block */
    struct __kernel_timespec ts;
};

struct ring {
    struct io_uring uring;
    bool open;
    unsigned pending;           /* prepared, not yet submitted */
    unsigned awaited;           /* ops in flight that a fiber waits for */
    unsigned parked;            /* fibers waiting on a Mutex or a Queue */
    struct op flight, ready;    /* list heads */
    struct op *free;
    st_table *blocked;          /* fiber => its OP_BLOCK */
    int wake;                   /* eventfd: #unblock from another thread */
    struct op wakeup;           /* its poll */
    uint64_t wake_count;        /* the eventfd's read lands here */
    VALUE thread;               /* the loop's */
    unsigned long long submissions, enters, completions;   /* counts, for profiles */
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

static void list_remove(struct op *op)
{
    op->prev->next = op->next;
    op->next->prev = op->prev;
    op->prev = op->next = NULL;
}

/* Moves an op to a list or the table of blocked fibers, or off them
 * (NOWHERE); PARKED ops are pushed on their waiters list by park(). */
static void place(struct ring *r, struct op *op, enum place where)
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

/* ---- the ring object ----------------------------------------------------- */

static void mark_list(const struct op *head)
{
    for (const struct op *op = head->next; op != head; op = op->next) {
        rb_gc_mark(op->fiber);
        rb_gc_mark(op->buffer);
        rb_gc_mark(op->exception);
        rb_gc_mark(op->message);
    }
}

static void ring_mark(void *p)
{
    struct ring *r = p;
    if (!r->flight.next)
        return;   /* not initialized */
    mark_list(&r->flight);
    mark_list(&r->ready);
    if (r->blocked)
        rb_mark_set(r->blocked);
    rb_gc_mark(r->thread);
}

static void free_list(struct op *head)
{
    while (!list_empty(head)) {
        struct op *op = head->next;
        list_remove(op);
        xfree(op);
    }
}

/* Ends the ring: its ops in the kernel are cancelled with it. */
static void ring_exit(struct ring *r)
{
    if (!r->open)
        return;
    io_uring_queue_exit(&r->uring);
    close(r->wake);
    r->open = false;
    free_list(&r->flight);
}

static int free_blocked(st_data_t fiber, st_data_t op, st_data_t unused)
{
    xfree((struct op *)op);
    return ST_CONTINUE;
}

static void ring_free(void *p)
{
    struct ring *r = p;
    ring_exit(r);
    if (r->flight.next)
        free_list(&r->ready);   /* ops of fibers that will never run again */
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

static size_t ring_size(const void *p)
{
    (void)p;
    return sizeof(struct ring);
}

static const rb_data_type_t ring_type = {
    .wrap_struct_name = "Concbench::Ring",
    .function = {.dmark = ring_mark, .dfree = ring_free, .dsize = ring_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE ring_alloc(VALUE klass)
{
    struct ring *r;
    VALUE self = TypedData_Make_Struct(klass, struct ring, &ring_type, r);
    r->thread = Qnil;
    return self;
}

static struct ring *get_ring(VALUE self)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    if (!r->open)
        rb_raise(rb_eIOError, "the ring is closed");
    return r;
}

/* ---- submission ---------------------------------------------------------- */

/* Counts a submission of what was prepared (rc: io_uring's return). */
static void submitted(struct ring *r, int rc)
{
    if (rc < 0)
        rb_syserr_fail(-rc, "io_uring_submit");
    r->enters++;
    r->submissions += r->pending;
    r->pending = 0;
}

/* A submission entry; a full queue is submitted first to make room. */
static struct io_uring_sqe *sqe_for(struct ring *r)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&r->uring);
    if (!sqe) {
        submitted(r, io_uring_submit(&r->uring));
        sqe = io_uring_get_sqe(&r->uring);
        if (!sqe)
            rb_raise(rb_eIOError, "io_uring: no submission entry after submitting");
    }
    r->pending++;
    return sqe;
}

/* An op from the free list, for the current fiber. */
static struct op *op_new(struct ring *r, enum kind kind)
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
static void op_release(struct ring *r, struct op *op)
{
    place(r, op, NOWHERE);
    op->next = r->free;
    r->free = op;
}

/* Puts an op prepared in sqe in flight: user data, list, count. */
static void in_flight(struct ring *r, struct io_uring_sqe *sqe, struct op *op)
{
    io_uring_sqe_set_data(sqe, op);
    place(r, op, IN_FLIGHT);
    if (op->fiber != Qnil)
        r->awaited++;
}

static void set_timespec(struct op *op, double seconds)
{
    long long ns = (long long)(seconds * 1e9 + 0.5);
    if (ns < 0)
        ns = 0;
    op->ts = (struct __kernel_timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

/* Asks the kernel to cancel an op in flight; its completion comes anyway. */
static void cancel(struct ring *r, struct op *op)
{
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_cancel(sqe, op, 0);
    io_uring_sqe_set_data(sqe, NULL);
}

/* An op in flight that nobody waits for any more: freed by its completion. */
static void orphan(struct ring *r, struct op *op)
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
static int await(struct ring *r, struct op *op)
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

static void rearm_wakeup(struct ring *r)
{
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_read(sqe, r->wake, &r->wake_count, sizeof r->wake_count, 0);
    io_uring_sqe_set_data(sqe, &r->wakeup);
}

static void complete(struct ring *r, struct op *op, int result)
{
    if (!op)
        return;   /* a cancel's or a linked timeout's own completion */
    if (op == &r->wakeup) {
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
        struct op *block = op->peer;
        if (block) {
            block->peer = NULL;
            if (block->place == BLOCKED) {
                block->result = 0;
                block->done = true;
                place(r, block, READY);
            }
        }
        op_release(r, op);
        return;
    }
    op->done = op->kind != OP_ALARM;   /* an alarm is done once raised */
    place(r, op, READY);
}

struct wait_args {
    struct ring *r;
    unsigned wait_nr;
    int rc;
};

static void *submit_and_wait_nogvl(void *p)
{
    struct wait_args *a = p;
    a->rc = io_uring_submit_and_wait(&a->r->uring, a->wait_nr);
    return NULL;
}

/* Submits what is prepared; if blocking, waits for at least one completion
 * (without the GVL); moves every completion's op to the ready list. */
static void reap(struct ring *r, bool blocking)
{
    struct wait_args a = {r, blocking ? 1 : 0, 0};
    if (a.wait_nr || r->pending) {
        if (a.wait_nr)
            rb_thread_call_without_gvl(submit_and_wait_nogvl, &a, RUBY_UBF_IO, NULL);
        else
            a.rc = io_uring_submit(&r->uring);
        submitted(r, a.rc == -EINTR || a.rc == -ETIME ? 0 : a.rc);   /* a signal or a timeout ended the wait */
    }
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&r->uring, head, cqe) {
        complete(r, io_uring_cqe_get_data(cqe), cqe->res);
        seen++;
    }
    io_uring_cq_advance(&r->uring, seen);
    r->completions += seen;
}

/* Resumes the ready ops' fibers in order; an alarm raises into its fiber. */
static void resume_ready(struct ring *r)
{
    while (!list_empty(&r->ready)) {
        struct op *op = r->ready.next;
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
static bool deadlocked(struct ring *r)
{
    return !r->awaited && list_empty(&r->ready) && (r->blocked->num_entries || r->parked) && rb_thread_alone();
}

/* #run: resumes fibers until none waits for an operation or a wake-up. */
static VALUE ring_run(VALUE self)
{
    struct ring *r = get_ring(self);
    while (true) {
        resume_ready(r);
        if (!r->open || (!r->awaited && !r->blocked->num_entries && !r->parked))
            return Qnil;
        if (deadlocked(r))
            rb_funcall(self, id_raise_deadlock, 1, ULONG2NUM(r->blocked->num_entries + r->parked));
        reap(r, list_empty(&r->ready));
    }
}

/* #close: runs the loop to its end, then closes the ring. */
static VALUE ring_close(VALUE self)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    if (!r->open)
        return Qnil;
    ring_run(self);
    ring_exit(r);
    return Qnil;
}

/* Ring.new(entries) */
static VALUE ring_initialize(VALUE self, VALUE entries)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    list_init(&r->flight);
    list_init(&r->ready);
    r->blocked = st_init_numtable();
    int rc = io_uring_queue_init(NUM2UINT(entries), &r->uring, 0);
    if (rc < 0)
        rb_syserr_fail(-rc, "io_uring_queue_init");
    r->wake = eventfd(0, EFD_CLOEXEC);
    if (r->wake < 0) {
        io_uring_queue_exit(&r->uring);
        rb_sys_fail("eventfd");
    }
    r->open = true;
    r->thread = rb_thread_current();
    rearm_wakeup(r);
    return self;
}

/* #counts: {submissions:, enters:, completions:} so far, closed or not. */
static VALUE ring_counts(VALUE self)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    static const char *const names[] = {"submissions", "enters", "completions"};
    const unsigned long long counts[] = {r->submissions, r->enters, r->completions};
    return counts_hash(names, counts, 3);
}

/* ---- reads, writes, polls ------------------------------------------------------ */

/* One read or write of count bytes at base (of buffer, which stays alive
 * meanwhile), at the file's position unless -1; the bytes moved, or -errno. */
static int transfer_once(struct ring *r, int fd, VALUE buffer, bool reading, char *base, unsigned count, off_t position)
{
    struct op *op = op_new(r, OP_IO);
    op->buffer = buffer;
    struct io_uring_sqe *sqe = sqe_for(r);
    if (reading)
        io_uring_prep_read(sqe, fd, base, count, (__u64)position);
    else
        io_uring_prep_write(sqe, fd, base, count, (__u64)position);
    in_flight(r, sqe, op);
    return await(r, op);
}

/* A one-shot poll for events, which gives up after timeout seconds unless
 * nil (a linked timeout); the events seen, 0 if the time ran out, or -errno. */
static int poll_once(struct ring *r, int fd, unsigned events, VALUE timeout)
{
    if (!NIL_P(timeout) && io_uring_sq_space_left(&r->uring) < 2)
        submitted(r, io_uring_submit(&r->uring));   /* the poll and its timeout go in together */
    struct op *op = op_new(r, OP_IO);
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_poll_add(sqe, fd, events);
    in_flight(r, sqe, op);
    if (!NIL_P(timeout)) {
        sqe->flags |= IOSQE_IO_LINK;
        set_timespec(op, NUM2DBL(timeout));
        struct io_uring_sqe *limit = sqe_for(r);
        io_uring_prep_link_timeout(limit, &op->ts, 0);
        io_uring_sqe_set_data(limit, NULL);
    }
    int result = await(r, op);
    return result == -ECANCELED ? 0 : result;
}

/* Reads or writes at least length bytes (one transfer if length is 0) of
 * buffer[offset..], at the file's position from on unless it is -1: a
 * descriptor that would block (non-blocking, as Ruby opens them) is polled,
 * then tried again. The bytes moved, 0 at end of file, or -errno. */
static VALUE transfer(struct ring *r, VALUE io, VALUE buffer, bool reading, VALUE length, VALUE offset, off_t from)
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
static VALUE ring_io_read(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    return transfer(get_ring(self), argv[0], argv[1], true, argv[2], argc > 3 ? argv[3] : INT2FIX(0), -1);
}

/* #io_write(io, buffer, length, offset = 0) */
static VALUE ring_io_write(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    return transfer(get_ring(self), argv[0], argv[1], false, argv[2], argc > 3 ? argv[3] : INT2FIX(0), -1);
}

/* #io_pread(io, buffer, from, length, offset) and #io_pwrite: IO#pread and
 * IO#pwrite call them from Ruby 3.3 on (scheduler.rb defines them for 3.2
 * and later: 3.1's hooks of those names take other arguments). */
static VALUE ring_io_pread(VALUE self, VALUE io, VALUE buffer, VALUE from, VALUE length, VALUE offset)
{
    return transfer(get_ring(self), io, buffer, true, length, offset, NUM2OFFT(from));
}

static VALUE ring_io_pwrite(VALUE self, VALUE io, VALUE buffer, VALUE from, VALUE length, VALUE offset)
{
    return transfer(get_ring(self), io, buffer, false, length, offset, NUM2OFFT(from));
}

/* #io_wait(io, events, timeout = nil): the events the descriptor is ready
 * for, or false if timeout seconds pass first. */
static VALUE ring_io_wait(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 2, 3);
    int result = poll_once(get_ring(self), rb_io_descriptor(argv[0]), NUM2UINT(argv[1]), argc > 2 ? argv[2] : Qnil);
    if (result == 0)
        return Qfalse;
    if (result < 0)
        rb_syserr_fail(-result, "poll");
    return INT2NUM(result);
}

/* The direct API (mechanism uring_direct): a fiber calls the ring on a
 * descriptor, with no Ruby IO in between, as UringMachine's own API is used.
 * #read(fd, buffer, length): one read of up to length bytes into the
 * buffer; the bytes read, 0 at end of file. */
static VALUE ring_read(VALUE self, VALUE fd, VALUE buffer, VALUE length)
{
    struct ring *r = get_ring(self);
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
static VALUE ring_write(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 3, 4);
    struct ring *r = get_ring(self);
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
static bool block(struct ring *r, VALUE timeout)
{
    struct op *op = op_new(r, OP_BLOCK);
    place(r, op, BLOCKED);
    if (!NIL_P(timeout)) {
        struct op *timer = op_new(r, OP_TIMER);
        set_timespec(timer, NUM2DBL(timeout));
        struct io_uring_sqe *sqe = sqe_for(r);
        io_uring_prep_timeout(sqe, &timer->ts, 0, 0);
        in_flight(r, sqe, timer);
        timer->peer = op;
        op->peer = timer;
    }
    return await(r, op);
}

/* #kernel_sleep(duration = nil) and #sleep(seconds): a timeout in the ring;
 * without a duration, until #unblock. */
static VALUE ring_kernel_sleep(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 0, 1);
    struct ring *r = get_ring(self);
    if (argc == 0 || NIL_P(argv[0])) {
        block(r, Qnil);
        return Qnil;
    }
    struct op *op = op_new(r, OP_SLEEP);
    set_timespec(op, NUM2DBL(argv[0]));
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_timeout(sqe, &op->ts, 0, 0);
    in_flight(r, sqe, op);
    await(r, op);
    return Qnil;
}

struct alarm {
    struct ring *r;
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
static VALUE ring_timeout_after(VALUE self, VALUE duration, VALUE exception, VALUE message)
{
    struct ring *r = get_ring(self);
    struct op *op = op_new(r, OP_ALARM);
    op->exception = exception;
    op->message = message;
    set_timespec(op, NUM2DBL(duration));
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_timeout(sqe, &op->ts, 0, 0);
    in_flight(r, sqe, op);
    struct alarm a = {r, op, duration};
    return rb_ensure(alarm_body, (VALUE)&a, alarm_end, (VALUE)&a);
}

/* ---- Mutex, Queue, ConditionVariable ------------------------------------------------ */

/* #block(blocker, timeout = nil): true once unblocked, false if timeout
 * seconds passed first. */
static VALUE ring_block(int argc, VALUE *argv, VALUE self)
{
    rb_check_arity(argc, 1, 2);
    return block(get_ring(self), argc > 1 ? argv[1] : Qnil) ? Qtrue : Qfalse;
}

/* #unblock(blocker, fiber): the fiber, if it is blocked here, is resumed by
 * the loop; a stale unblock (stock Queue and Mutex may wake a fiber that has
 * gone on) finds nothing. From another thread the loop is woken. */
static VALUE ring_unblock(VALUE self, VALUE blocker, VALUE fiber)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    if (!r->open)
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

/* #pass: lets every other ready fiber run, then goes on (a Task's yield). */
static VALUE ring_pass(VALUE self)
{
    struct ring *r = get_ring(self);
    struct op *op = op_new(r, OP_PASS);
    place(r, op, READY);
    await(r, op);
    return Qnil;
}

/* ---- the direct API's Mutex and Queue ------------------------------------------- */

/* A waiters list: fibers parked in C until a hand-off (unlock, push, pop)
 * moves them to the ring's ready list. The list's owner marks them. */
static void mark_waiters(const struct op *head)
{
    for (const struct op *op = head->next; op != head; op = op->next)
        rb_gc_mark(op->fiber);
}

/* The current fiber's ring: the thread's scheduler, which must be one. */
static struct ring *current_ring(void)
{
    return get_ring(rb_fiber_scheduler_current());
}

/* Parks the current fiber on waiters until woken (true). */
static bool park(struct ring *r, struct op *waiters)
{
    struct op *op = op_new(r, OP_BLOCK);
    op->place = PARKED;
    list_push(waiters, op);
    r->parked++;
    return await(r, op);
}

/* Wakes the first fiber parked on waiters, if any; whether one was. */
static bool wake_first(struct ring *r, struct op *waiters)
{
    if (list_empty(waiters))
        return false;
    struct op *op = waiters->next;
    op->result = 1;
    op->done = true;
    place(r, op, READY);
    return true;
}

/* Concbench::Ring::Mutex: a lock for fibers under a Ring, as stock Mutex's
 * interface (try_lock, lock, unlock, synchronize); unlock hands it to the
 * first waiter, so a fiber woken holds it. */
struct mutex {
    bool locked;
    struct op waiters;
};

static void mutex_mark(void *p) { mark_waiters(&((struct mutex *)p)->waiters); }

static size_t mutex_size(const void *p) { return sizeof(struct mutex); }

static const rb_data_type_t mutex_type = {
    .wrap_struct_name = "Concbench::Ring::Mutex",
    .function = {.dmark = mutex_mark, .dfree = RUBY_TYPED_DEFAULT_FREE, .dsize = mutex_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE mutex_alloc(VALUE klass)
{
    struct mutex *m;
    VALUE self = TypedData_Make_Struct(klass, struct mutex, &mutex_type, m);
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
    return Qtrue;
}

static VALUE mutex_lock(VALUE self)
{
    struct mutex *m = get_mutex(self);
    if (m->locked)
        park(current_ring(), &m->waiters);   /* woken holding it */
    else
        m->locked = true;
    return self;
}

static VALUE mutex_unlock(VALUE self)
{
    struct mutex *m = get_mutex(self);
    if (!m->locked)
        rb_raise(rb_eThreadError, "the mutex is not locked");
    if (list_empty(&m->waiters))
        m->locked = false;
    else
        wake_first(current_ring(), &m->waiters);   /* it holds the lock now */
    return self;
}

static VALUE mutex_synchronize(VALUE self)
{
    mutex_lock(self);
    return rb_ensure(rb_yield, Qnil, mutex_unlock, self);
}

/* Concbench::Ring::Queue.new(capacity = 0): a FIFO for fibers under a Ring,
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
    .wrap_struct_name = "Concbench::Ring::Queue",
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
        park(current_ring(), &q->pushers);
    rb_ary_push(q->items, value);
    if (!list_empty(&q->poppers))
        wake_first(current_ring(), &q->poppers);
    return self;
}

static VALUE queue_pop(VALUE self)
{
    struct queue *q = get_queue(self);
    while (RARRAY_LEN(q->items) == 0)
        park(current_ring(), &q->poppers);
    VALUE value = rb_ary_shift(q->items);
    if (!list_empty(&q->pushers))
        wake_first(current_ring(), &q->pushers);
    return value;
}

static VALUE queue_length(VALUE self) { return LONG2NUM(RARRAY_LEN(get_queue(self)->items)); }

static VALUE queue_empty_p(VALUE self) { return RARRAY_LEN(get_queue(self)->items) ? Qfalse : Qtrue; }

void init_ring(VALUE concbench)
{
    id_raise_deadlock = rb_intern("raise_deadlock");
    VALUE base = rb_const_get(concbench, rb_intern("Scheduler"));
    VALUE ring = rb_define_class_under(concbench, "Ring", base);
    rb_define_alloc_func(ring, ring_alloc);
    rb_define_method(ring, "initialize", ring_initialize, 1);
    rb_define_method(ring, "run", ring_run, 0);
    rb_define_method(ring, "close", ring_close, 0);
    rb_define_method(ring, "counts", ring_counts, 0);
    rb_define_method(ring, "io_read", ring_io_read, -1);
    rb_define_method(ring, "io_write", ring_io_write, -1);
    rb_define_method(ring, "io_pread", ring_io_pread, 5);
    rb_define_method(ring, "io_pwrite", ring_io_pwrite, 5);
    rb_define_method(ring, "io_wait", ring_io_wait, -1);
    rb_define_method(ring, "kernel_sleep", ring_kernel_sleep, -1);
    rb_define_method(ring, "timeout_after", ring_timeout_after, 3);
    rb_define_method(ring, "block", ring_block, -1);
    rb_define_method(ring, "unblock", ring_unblock, 2);
    rb_define_method(ring, "pass", ring_pass, 0);
    rb_define_method(ring, "read", ring_read, 3);
    rb_define_method(ring, "write", ring_write, -1);
    rb_define_method(ring, "sleep", ring_kernel_sleep, -1);

    VALUE mutex = rb_define_class_under(ring, "Mutex", rb_cObject);
    rb_define_alloc_func(mutex, mutex_alloc);
    rb_define_method(mutex, "try_lock", mutex_try_lock, 0);
    rb_define_method(mutex, "lock", mutex_lock, 0);
    rb_define_method(mutex, "unlock", mutex_unlock, 0);
    rb_define_method(mutex, "synchronize", mutex_synchronize, 0);

    VALUE queue = rb_define_class_under(ring, "Queue", rb_cObject);
    rb_define_alloc_func(queue, queue_alloc);
    rb_define_method(queue, "initialize", queue_initialize, -1);
    rb_define_method(queue, "push", queue_push, 1);
    rb_define_method(queue, "<<", queue_push, 1);
    rb_define_method(queue, "pop", queue_pop, 0);
    rb_define_method(queue, "size", queue_length, 0);
    rb_define_method(queue, "empty?", queue_empty_p, 0);
}

/* Concbench::Ring: one io_uring, driven by a fiber scheduler written in Ruby
 * (runtimes/ruby/scheduler.rb). The ring knows nothing of fibers: each
 * operation is submitted with an integer id, and #wait yields the ids that
 * completed with their results (a byte count, poll events, or -errno), which
 * the scheduler maps back to the fibers waiting on them.
 *
 * Buffers: a read or write works on an IO::Buffer's memory, which the
 * waiting fiber keeps alive (and the scheduler locks) until the operation
 * completes; the ring keeps no reference. */
#include "events.h"

#include <errno.h>
#include <liburing.h>
#include <string.h>

struct ring {
    struct io_uring uring;
    bool open;
    unsigned pending;   /* prepared, not yet submitted */
    unsigned long long submissions, enters, completions;   /* counts, for profiles */
};

static void ring_free(void *p)
{
    struct ring *r = p;
    if (r->open)
        io_uring_queue_exit(&r->uring);
    xfree(r);
}

static size_t ring_size(const void *p)
{
    (void)p;
    return sizeof(struct ring);
}

static const rb_data_type_t ring_type = {
    .wrap_struct_name = "Concbench::Ring",
    .function = {.dfree = ring_free, .dsize = ring_size},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE ring_alloc(VALUE klass)
{
    struct ring *r;
    VALUE self = TypedData_Make_Struct(klass, struct ring, &ring_type, r);
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

/* Ring.new(entries) */
static VALUE ring_initialize(VALUE self, VALUE entries)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    int rc = io_uring_queue_init(NUM2UINT(entries), &r->uring, 0);
    if (rc < 0)
        rb_syserr_fail(-rc, "io_uring_queue_init");
    r->open = true;
    return self;
}

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

/* #read(id, fd, buffer, offset, length, position): read into buffer[offset,
 * length] from the file's position (a pread), or where it stands if -1. */
static VALUE ring_read(VALUE self, VALUE id, VALUE fd, VALUE buffer, VALUE offset, VALUE length, VALUE position)
{
    struct ring *r = get_ring(self);
    unsigned count;
    char *at = buffer_span(buffer, true, offset, length, &count);
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_read(sqe, NUM2INT(fd), at, count, (__u64)NUM2LL(position));
    io_uring_sqe_set_data64(sqe, NUM2ULL(id));
    return self;
}

/* #write(id, fd, buffer, offset, length, position): write buffer[offset,
 * length] at the file's position (a pwrite), or where it stands if -1. */
static VALUE ring_write(VALUE self, VALUE id, VALUE fd, VALUE buffer, VALUE offset, VALUE length, VALUE position)
{
    struct ring *r = get_ring(self);
    unsigned count;
    const char *at = buffer_span(buffer, false, offset, length, &count);
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_write(sqe, NUM2INT(fd), at, count, (__u64)NUM2LL(position));
    io_uring_sqe_set_data64(sqe, NUM2ULL(id));
    return self;
}

/* #poll(id, fd, events): one-shot poll; completes with the events seen. */
static VALUE ring_poll(VALUE self, VALUE id, VALUE fd, VALUE events)
{
    struct io_uring_sqe *sqe = sqe_for(get_ring(self));
    io_uring_prep_poll_add(sqe, NUM2INT(fd), NUM2UINT(events));
    io_uring_sqe_set_data64(sqe, NUM2ULL(id));
    return self;
}

/* #timeout(id, ns): completes with -ETIME after ns nanoseconds. The
 * timespec is copied by the kernel when the entry is submitted, which
 * happens before this call's frame is gone: submit now. */
static VALUE ring_timeout(VALUE self, VALUE id, VALUE ns)
{
    struct ring *r = get_ring(self);
    long long total = NUM2LL(ns);
    struct __kernel_timespec ts = {.tv_sec = total / 1000000000, .tv_nsec = total % 1000000000};
    struct io_uring_sqe *sqe = sqe_for(r);
    io_uring_prep_timeout(sqe, &ts, 0, 0);
    io_uring_sqe_set_data64(sqe, NUM2ULL(id));
    submitted(r, io_uring_submit(&r->uring));
    return self;
}

/* #cancel(id, target): cancels the operation submitted as target. */
static VALUE ring_cancel(VALUE self, VALUE id, VALUE target)
{
    struct io_uring_sqe *sqe = sqe_for(get_ring(self));
    io_uring_prep_cancel64(sqe, NUM2ULL(target), 0);
    io_uring_sqe_set_data64(sqe, NUM2ULL(id));
    return self;
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

/* #wait(blocking) { |id, result| }: submits what is prepared; if blocking,
 * waits for at least one completion (without the GVL); yields each
 * completion, released from the ring first (the block may raise). */
static VALUE ring_wait(VALUE self, VALUE blocking)
{
    struct ring *r = get_ring(self);
    struct wait_args a = {r, RTEST(blocking) ? 1 : 0, 0};
    if (a.wait_nr || r->pending) {
        if (a.wait_nr)
            rb_thread_call_without_gvl(submit_and_wait_nogvl, &a, RUBY_UBF_IO, NULL);
        else
            a.rc = io_uring_submit(&r->uring);
        submitted(r, a.rc == -EINTR || a.rc == -ETIME ? 0 : a.rc);   /* a signal or a timeout ended the wait */
    }
    struct io_uring_cqe *cqe;
    while (r->open && io_uring_peek_cqe(&r->uring, &cqe) == 0) {
        unsigned long long id = io_uring_cqe_get_data64(cqe);
        int result = cqe->res;
        io_uring_cqe_seen(&r->uring, cqe);
        r->completions++;
        rb_yield_values(2, ULL2NUM(id), INT2NUM(result));
    }
    return Qnil;
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

static VALUE ring_close(VALUE self)
{
    struct ring *r;
    TypedData_Get_Struct(self, struct ring, &ring_type, r);
    if (r->open)
        io_uring_queue_exit(&r->uring);
    r->open = false;
    return Qnil;
}

void init_ring(VALUE concbench)
{
    VALUE ring = rb_define_class_under(concbench, "Ring", rb_cObject);
    rb_define_alloc_func(ring, ring_alloc);
    rb_define_method(ring, "initialize", ring_initialize, 1);
    rb_define_method(ring, "read", ring_read, 6);
    rb_define_method(ring, "write", ring_write, 6);
    rb_define_method(ring, "poll", ring_poll, 3);
    rb_define_method(ring, "timeout", ring_timeout, 2);
    rb_define_method(ring, "cancel", ring_cancel, 2);
    rb_define_method(ring, "wait", ring_wait, 1);
    rb_define_method(ring, "counts", ring_counts, 0);
    rb_define_method(ring, "close", ring_close, 0);
}

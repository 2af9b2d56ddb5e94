/* The Ruby runtime's fiber scheduler (runtimes/ruby/scheduler.rb) in C: one
 * core (core.c: the waiting fibers, the loop that resumes them, the
 * Fiber::Scheduler hooks and the direct API) on two back ends, the event
 * sources: io_uring (ring.c) and epoll (epoll.c). A back end takes
 * operations, each a struct op of the core's named by its address, and
 * hands their completions back to the core (core_complete) when it waits. */
#ifndef CONCBENCH_EVENTS_H
#define CONCBENCH_EVENTS_H

#include <linux/time_types.h>
#include <ruby.h>
#include <ruby/io.h>
#include <ruby/io/buffer.h>
#include <ruby/thread.h>
#include <stdbool.h>

struct op;
struct core;

/* An event source. Operations complete later, through core_complete, from
 * wait; none raises but open (and wait, on a failed system call). */
struct backend {
    /* Opens one with room for entries operations at once; its state. */
    void *(*open)(unsigned entries);
    void (*close)(void *state);
    /* A read or write of count bytes at base, at the file's position unless
     * -1; NULL: not an operation of this back end (the core makes it at
     * once, and polls when it would block). */
    void (*transfer)(void *state, struct op *op, int fd, bool reading, char *base, unsigned count, long long position);
    /* A one-shot poll: completes with the events seen, or -errno. */
    void (*poll)(void *state, struct op *op, int fd, unsigned events);
    /* Completes with -ETIME after *ts, which lives as long as the op. */
    void (*timeout)(void *state, struct op *op, const struct __kernel_timespec *ts);
    /* The op completes with -ECANCELED unless it has completed already. */
    void (*cancel)(void *state, struct op *op);
    /* Submits what is prepared; if blocking, waits (without the GVL) for at
     * least one completion; hands every completion to the core. */
    void (*wait)(void *state, struct core *core, bool blocking);
    /* {name: count, ...}: what the event source has done, for profiles. */
    VALUE (*counts)(const void *state);
};

extern const struct backend uring_backend, epoll_backend;

void core_complete(struct core *core, struct op *op, int result);

/* {name: count, ...} from names and counts, for counts. */
VALUE counts_hash(const char *const names[], const unsigned long long counts[], int n);

void init_core(VALUE concbench);

#endif

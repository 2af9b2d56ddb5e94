/* await-readable and await-writable, written once: `batch` pipes are made
 * before the clocks start; operation i of a batch awaits the readiness of
 * pipe i, which is ready already (a byte waits in it, or it is empty): the
 * cost of asking, not of waiting. Awaits are sequential, as in the seed. An
 * await counts only when readiness of that very descriptor was reported. */
#ifndef CONCBENCH_READINESS_H
#define CONCBENCH_READINESS_H

#include "kit.h"

struct readiness {
    short events;   /* POLLIN or POLLOUT: epoll and io_uring use the same bits */
    bool filled;    /* a byte is written into each pipe and its reader awaited;
                       otherwise its writer is awaited */
};

int readiness_pthread(struct run *run, const struct readiness *kind);
int readiness_epoll(struct run *run, const struct readiness *kind);
int readiness_io_uring(struct run *run, const struct readiness *kind);

#endif

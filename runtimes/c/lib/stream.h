/* The stream workloads (pipe, socketpair), written once: per group a writer
 * sends `messages` blocks of `size` bytes and ends its side, a reader reads
 * until EOF and counts the bytes. The workloads differ only in how the
 * descriptor pair is made and how the writer ends its side. */
#ifndef CONCBENCH_STREAM_H
#define CONCBENCH_STREAM_H

#include "kit.h"

struct stream_kind {
    /* fds[0]: the reader's end, fds[1]: the writer's end. */
    int (*make_pair)(struct run *run, int fds[2], bool nonblock);
    /* The writer's last act; the descriptor is gone afterwards. */
    int (*end_writer)(struct run *run, int fd);
};

int stream_pthread(struct run *run, const struct stream_kind *kind);
int stream_epoll(struct run *run, const struct stream_kind *kind);
int stream_io_uring(struct run *run, const struct stream_kind *kind);

#endif

/* The event sources under the Ruby runtime's fiber scheduler (scheduler.rb):
 * Concbench::Ring on io_uring (ring.c) and Concbench::Epoll on epoll
 * (epoll.c). Both take operations submitted with an integer id and yield
 * (id, result) from #wait as they complete, so that one scheduler drives
 * either; the scheduler maps ids back to fibers. */
#ifndef CONCBENCH_EVENTS_H
#define CONCBENCH_EVENTS_H

#include <ruby.h>
#include <ruby/io.h>
#include <ruby/io/buffer.h>
#include <ruby/thread.h>
#include <stdbool.h>

/* buffer[offset, length] of an IO::Buffer, checked against its size; for
 * writing into it (a read) or reading from it (a write). */
char *buffer_span(VALUE buffer, bool writing, VALUE offset, VALUE length, unsigned *count);

/* {name: count, ...} from names and counts, for #counts. */
VALUE counts_hash(const char *const names[], const unsigned long long counts[], int n);

void init_ring(VALUE concbench);
void init_epoll(VALUE concbench);

#endif

# Builds concbench_events: Concbench::Core, the fiber scheduler in C, on
# io_uring (ring.c) or epoll (epoll.c) (scheduler.rb).
require "mkmf"

abort "liburing is missing (apt-get install liburing-dev)" unless have_library("uring", "io_uring_queue_init", "liburing.h")
$CFLAGS << " -O2 -Wall -Wextra -Werror -Wno-unused-parameter"
create_makefile("concbench_events")

# Builds concbench_events: Concbench::Ring on io_uring and Concbench::Epoll,
# the two event sources of one fiber scheduler (scheduler.rb).
require "mkmf"

abort "liburing is missing (apt-get install liburing-dev)" unless have_library("uring", "io_uring_queue_init", "liburing.h")
$CFLAGS << " -O2 -Wall -Wextra -Werror -Wno-unused-parameter"
create_makefile("concbench_events")

# Builds Concbench::Ring, one io_uring for one fiber scheduler (uring_scheduler.rb).
require "mkmf"

abort "liburing is missing (apt-get install liburing-dev)" unless have_library("uring", "io_uring_queue_init", "liburing.h")
$CFLAGS << " -O2 -Wall -Wextra -Werror -Wno-unused-parameter"
create_makefile("concbench_ring")

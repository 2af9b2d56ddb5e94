// Invoke: mere invocation (see lib/invocation.hpp).
#include "lib/invocation.hpp"

const struct mechanism invoke_mechanisms[] = {
    kit::row("thread", kit::guarded<invocation_thread<false>>),
    asio_row(kit::guarded<invocation_asio<false>>),
    asio_mt_row(kit::guarded<invocation_asio<false>>),
    kit::row("tbb", kit::guarded<invocation_tbb>),
    {},
};

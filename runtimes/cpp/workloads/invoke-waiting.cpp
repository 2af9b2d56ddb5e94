// Invoke-waiting: invocation whose body yields once (see
// lib/invocation.hpp); a TBB task cannot yield (runtime.toml's na).
#include "lib/invocation.hpp"

const struct mechanism invoke_waiting_mechanisms[] = {
    kit::row("thread", kit::guarded<invocation_thread<true>>),
    asio_row(kit::guarded<invocation_asio<true>>),
    asio_mt_row(kit::guarded<invocation_asio<true>>),
    {},
};

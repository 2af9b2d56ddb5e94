// Await-writable: see lib/readiness.hpp; each pipe is empty.
#include "lib/readiness.hpp"

const struct mechanism await_writable_mechanisms[] = {
    readiness_rows<false>[0],
    readiness_rows<false>[1],
    readiness_rows<false>[2],
    {},
};

// Await-readable: see lib/readiness.hpp; each pipe holds a byte never read.
#include "lib/readiness.hpp"

const struct mechanism await_readable_mechanisms[] = {
    readiness_rows<true>[0],
    readiness_rows<true>[1],
    readiness_rows<true>[2],
    {},
};

/* The CPU time of the whole process (all its threads) for the Haskell kit,
 * which calls it through the FFI: getrusage(RUSAGE_SELF), user and system
 * separately, in nanoseconds. */
#include <stdint.h>
#include <sys/resource.h>

/* Stores user and system time in out[0] and out[1]; 0, or -1 with errno. */
int concbench_cpu_ns(int64_t out[2])
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) < 0)
        return -1;
    out[0] = (int64_t)ru.ru_utime.tv_sec * 1000000000 + (int64_t)ru.ru_utime.tv_usec * 1000;
    out[1] = (int64_t)ru.ru_stime.tv_sec * 1000000000 + (int64_t)ru.ru_stime.tv_usec * 1000;
    return 0;
}

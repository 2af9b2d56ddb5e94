/* The C kit's entry: the probes runtime.toml's `requires` run, else one
 * trial (kit.c). */
#include "kit.h"
#include "probes.h"

#include <string.h>

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--probe-io-uring") == 0)
        return uring_probe();
    if (argc == 2 && strcmp(argv[1], "--probe-coroutine") == 0)
        return coro_probe();
    return kit_main(argc, argv, "c");
}

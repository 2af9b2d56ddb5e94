/* The extension's entry point. */
#include "events.h"

VALUE counts_hash(const char *const names[], const unsigned long long counts[], int n)
{
    VALUE h = rb_hash_new();
    for (int i = 0; i < n; i++)
        rb_hash_aset(h, ID2SYM(rb_intern(names[i])), ULL2NUM(counts[i]));
    return h;
}

void Init_concbench_events(void)
{
    init_core(rb_define_module("Concbench"));
}

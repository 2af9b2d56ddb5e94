/* The extension's entry point and what both event sources share. */
#include "events.h"

char *buffer_span(VALUE buffer, bool writing, VALUE offset, VALUE length, unsigned *count)
{
    void *base;
    size_t size;
    if (writing)
        rb_io_buffer_get_bytes_for_writing(buffer, &base, &size);
    else
        rb_io_buffer_get_bytes_for_reading(buffer, (const void **)&base, &size);
    size_t at = NUM2SIZET(offset), n = NUM2SIZET(length);
    if (at > size || n > size - at || n > UINT_MAX)
        rb_raise(rb_eArgError, "past the buffer's end");
    *count = (unsigned)n;
    return (char *)base + at;
}

VALUE counts_hash(const char *const names[], const unsigned long long counts[], int n)
{
    VALUE h = rb_hash_new();
    for (int i = 0; i < n; i++)
        rb_hash_aset(h, ID2SYM(rb_intern(names[i])), ULL2NUM(counts[i]));
    return h;
}

void Init_concbench_events(void)
{
    VALUE concbench = rb_define_module("Concbench");
    init_ring(concbench);
    init_epoll(concbench);
}

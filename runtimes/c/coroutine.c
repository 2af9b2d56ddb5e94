/* Minimal stackful coroutines: see coroutine.h. */
#include "coroutine.h"
#include "probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__LP64__)   /* not x32 */
#define SUPPORTED 1
#else
#define SUPPORTED 0
#endif
#define UNSUPPORTED "coroutines are implemented for x86-64 System V only"

/* Ample for the bodies here; only the pages a coroutine touches are ever
 * backed by memory. A multiple of every page size Linux uses. */
#define STACK_SIZE (64 * 1024)

#if SUPPORTED

/* coro_switch(from = %rdi, to = %rsi): the System V callee-saved registers
 * and nothing else. The x87 and SSE control words are not saved: nothing
 * here changes them (Ruby's amd64 switch does not save them either). */
__asm__(".pushsection .text\n"
        ".globl coro_switch\n"
        ".type coro_switch, @function\n"
        "coro_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq (%rsi), %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size coro_switch, .-coro_switch\n"
        ".popsection\n");

#define SAVED_REGISTERS 6

/* The stack as a switch away from start's first instruction would have left
 * it: the first switch in pops zeroed registers (%rbp = 0 ends a debugger's
 * backtrace) and returns into start with %rdi and %rsi still holding its
 * own arguments, (from, self), and the stack aligned as after a call. */
void coro_init(struct coro *c, coro_start start, void *top)
{
    void **sp = top;
    *--sp = NULL;   /* start's return address: it never returns */
    *--sp = (void *)(uintptr_t)start;
    sp -= SAVED_REGISTERS;
    memset(sp, 0, SAVED_REGISTERS * sizeof *sp);
    c->sp = sp;
}

static void probe_start(struct coro *from, struct coro *self)
{
    coro_switch(self, from);
    __builtin_unreachable();   /* nothing resumes it */
}

int coro_probe(void)
{
    static char stack[16 * 1024] __attribute__((aligned(16)));
    struct coro caller, c;
    coro_init(&c, probe_start, stack + sizeof stack);
    coro_switch(&caller, &c);
    return 0;
}

#else

int coro_probe(void)
{
    fprintf(stderr, "%s\n", UNSUPPORTED);
    return 1;
}

/* Never reached: without stacks there is no coroutine to switch to. */
void coro_init(struct coro *c, coro_start start, void *top)
{
    (void)c, (void)start, (void)top;
    abort();
}

void coro_switch(struct coro *from, struct coro *to)
{
    (void)from, (void)to;
    abort();
}

#endif

static size_t slot_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE) + STACK_SIZE;
}

/* One mapping for the pool; the guard page is the lowest page of each slot. */
int coro_stacks_new(struct run *run, struct coro_stacks *stacks, size_t count)
{
    if (!SUPPORTED)
        return run_fail(run, UNSUPPORTED);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), slot = slot_size();
    char *base = mmap(NULL, count * slot, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base == MAP_FAILED)
        return run_syserr(run, "mmap", errno);
    for (size_t i = 0; i < count; i++) {
        if (mprotect(base + i * slot, page, PROT_NONE) < 0) {
            int err = errno;
            munmap(base, count * slot);
            return run_syserr(run, "mprotect (guard page)", err);
        }
    }
    *stacks = (struct coro_stacks){.base = base, .count = count};
    return 0;
}

void *coro_stack_top(const struct coro_stacks *stacks, size_t i)
{
    return stacks->base + (i + 1) * slot_size();
}

void coro_stacks_free(struct coro_stacks *stacks)
{
    if (stacks->base)
        munmap(stacks->base, stacks->count * slot_size());
    stacks->base = NULL;
}

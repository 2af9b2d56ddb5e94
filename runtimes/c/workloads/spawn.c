/* Spawn: `tasks` threads started at once; thread i sleeps `delay_ms` (if
 * more than 0) and returns i; all are joined and their values summed. */
#include "kit.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* glibc gives a thread a stack of RLIMIT_STACK (8 MiB by default): 10,000
 * of them would reserve 80 GB of address space, which a strict overcommit
 * policy refuses. A task that only sleeps needs a few KiB: 64 KiB keeps
 * 10,000 threads to 640 MB. (Creation takes about as long either way.) */
#define STACK_SIZE (64 * 1024)

struct task {
    struct run *run;
    const struct timespec *delay;
    int64_t index;
};

static void *task_main(void *arg)
{
    const struct task *t = arg;
    unit_started(t->run);
    struct timespec left = *t->delay;
    if (left.tv_sec || left.tv_nsec)
        while (nanosleep(&left, &left) < 0 && errno == EINTR)
            ;
    void *value = (void *)(intptr_t)t->index;
    unit_finished(t->run);
    return value;
}

static int spawn_pthread(struct run *run)
{
    int64_t tasks, delay_ms;
    if (param_int(run, "tasks", 1, &tasks) < 0 || param_int(run, "delay_ms", 0, &delay_ms) < 0)
        return -1;
    struct timespec delay = {.tv_sec = delay_ms / 1000, .tv_nsec = delay_ms % 1000 * 1000000};
    struct task *task = calloc((size_t)tasks, sizeof *task);
    pthread_t *tid = calloc((size_t)tasks, sizeof *tid);
    pthread_attr_t attr;
    int rc;
    if (!task || !tid) {
        run_syserr(run, "calloc", errno);
        goto out;
    }
    if ((rc = pthread_attr_init(&attr)) != 0) {
        run_syserr(run, "pthread_attr_init", rc);
        goto out;
    }
    if ((rc = pthread_attr_setstacksize(&attr, STACK_SIZE)) != 0)
        run_syserr(run, "pthread_attr_setstacksize", rc);
    /* If a thread cannot start, those already running are still joined. */
    int64_t started = 0;
    for (; started < tasks && !run_failed(run); started++) {
        task[started] = (struct task){.run = run, .delay = &delay, .index = started};
        if ((rc = pthread_create(&tid[started], &attr, task_main, &task[started])) != 0) {
            run_syserr(run, "pthread_create", rc);
            break;
        }
    }
    pthread_attr_destroy(&attr);
    int64_t sum = 0;
    for (int64_t i = 0; i < started; i++) {
        void *value;
        if ((rc = pthread_join(tid[i], &value)) != 0)
            run_syserr(run, "pthread_join", rc);
        else
            sum += (intptr_t)value;
    }
    if (!run_failed(run))
        result_set(run, "sum", sum);
out:
    free(task);
    free(tid);
    return run_failed(run) ? -1 : 0;
}

const struct mechanism spawn_mechanisms[] = {
    {.name = "pthread", .run = spawn_pthread},
    {0},
};

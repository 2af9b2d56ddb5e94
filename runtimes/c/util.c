/* The C kit's API for workload files (kit.h): parameters, results,
 * evidence and failures of a run, and the helpers the workloads share. */
#include "kit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* The parameter's JSON value; NULL, with the failure recorded, if it is missing. */
static const json_t *param_get(struct run *run, const char *name)
{
    const json_t *v = json_object_get(run->params, name);
    if (!v)
        run_fail(run, "missing parameter %s", name);
    return v;
}

int param_int(struct run *run, const char *name, int64_t min, int64_t *value)
{
    const json_t *v = param_get(run, name);
    if (!v)
        return -1;
    if (!json_is_integer(v))
        return run_fail(run, "parameter %s is not an integer", name);
    *value = json_integer_value(v);
    if (*value < min)
        return run_fail(run, "parameter %s = %lld, must be >= %lld", name,
                        (long long)*value, (long long)min);
    return 0;
}

int param_float(struct run *run, const char *name, double min, double *value)
{
    const json_t *v = param_get(run, name);
    if (!v)
        return -1;
    if (!json_is_number(v))
        return run_fail(run, "parameter %s is not a number", name);
    *value = json_number_value(v);
    if (*value < min)
        return run_fail(run, "parameter %s = %g, must be >= %g", name, *value, min);
    return 0;
}

int param_choice(struct run *run, const char *name, const char *const choices[], int *index)
{
    const json_t *v = param_get(run, name);
    if (!v)
        return -1;
    const char *s = json_string_value(v);
    if (!s)
        return run_fail(run, "parameter %s is not a string", name);
    for (*index = 0; choices[*index]; ++*index)
        if (strcmp(choices[*index], s) == 0)
            return 0;
    return run_fail(run, "parameter %s = \"%s\" is not one of its choices", name, s);
}

void result_set(struct run *run, const char *name, int64_t value)
{
    for (int i = 0; i < run->nresults; i++) {
        if (strcmp(run->result_name[i], name) == 0) {
            run->result_value[i] = value;
            return;
        }
    }
    if (run->nresults == RESULT_MAX) {
        run_fail(run, "too many result values (adding %s)", name);
        return;
    }
    run->result_name[run->nresults] = name;
    run->result_value[run->nresults++] = value;
}

void evidence_set(struct run *run, const char *name, int64_t value)
{
    for (int i = 0; i < run->nevidence; i++) {
        if (strcmp(run->evidence_name[i], name) == 0) {
            run->evidence_value[i] = value;
            run->evidence_null[i] = false;
            return;
        }
    }
    if (run->nevidence == EVIDENCE_MAX) {
        run_fail(run, "too many evidence values (adding %s)", name);
        return;
    }
    run->evidence_name[run->nevidence] = name;
    run->evidence_null[run->nevidence] = false;
    run->evidence_value[run->nevidence++] = value;
}

void evidence_unobservable(struct run *run, const char *name)
{
    evidence_set(run, name, 0);
    for (int i = 0; i < run->nevidence; i++)
        if (strcmp(run->evidence_name[i], name) == 0)
            run->evidence_null[i] = true;
}

static int run_vfail(struct run *run, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&run->error_lock);
    if (!run->failed) {
        vsnprintf(run->error, sizeof run->error, fmt, ap);
        run->failed = true;
    }
    pthread_mutex_unlock(&run->error_lock);
    return -1;
}

int run_fail(struct run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    run_vfail(run, fmt, ap);
    va_end(ap);
    return -1;
}

int run_syserr(struct run *run, const char *call, int err)
{
    char buf[128];
    /* GNU strerror_r: thread-safe, returns the message (maybe not in buf). */
    return run_fail(run, "%s: %s", call, strerror_r(err, buf, sizeof buf));
}

bool run_failed(struct run *run)
{
    pthread_mutex_lock(&run->error_lock);
    bool failed = run->failed;
    pthread_mutex_unlock(&run->error_lock);
    return failed;
}

int write_all(struct run *run, int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return run_syserr(run, "write", errno);
        }
        if (n == 0)
            return run_fail(run, "write: wrote nothing");
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int close_fd(struct run *run, int fd)
{
    /* No retry on EINTR: on Linux the descriptor is released anyway. */
    if (close(fd) < 0)
        return run_syserr(run, "close", errno);
    return 0;
}

char *block_new(struct run *run, size_t size)
{
    char *block = malloc(size);
    if (!block) {
        run_syserr(run, "malloc", errno);
        return NULL;
    }
    memset(block, 'x', size);
    return block;
}

int thread_start(struct run *run, pthread_t *tid, void *(*fn)(void *), void *arg)
{
    int rc = pthread_create(tid, NULL, fn, arg);
    return rc ? run_syserr(run, "pthread_create", rc) : 0;
}

int thread_join(struct run *run, pthread_t tid)
{
    int rc = pthread_join(tid, NULL);
    return rc ? run_syserr(run, "pthread_join", rc) : 0;
}

int listener_announce(struct run *run, int fd)
{
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) < 0)
        return run_syserr(run, "getsockname", errno);
    char address[sizeof addr + 16];   /* "unix:" and a path, or "tcp:" and host:port */
    if (addr.ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&addr;
        char host[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        snprintf(address, sizeof address, "tcp:%s:%u", host, ntohs(in->sin_port));
    } else if (addr.ss_family == AF_UNIX) {
        snprintf(address, sizeof address, "unix:%s", ((const struct sockaddr_un *)&addr)->sun_path);
    } else {
        return run_fail(run, "listener_announce: a socket neither TCP/IPv4 nor Unix");
    }
    json_t *line = json_pack("{s:s}", "listening", address);
    char *text = line ? json_dumps(line, JSON_COMPACT) : NULL;
    json_decref(line);
    if (!text)
        return run_fail(run, "listener_announce: out of memory");
    printf("%s\n", text);
    free(text);
    if (fflush(stdout) != 0)
        return run_syserr(run, "fflush (stdout)", errno);
    return 0;
}

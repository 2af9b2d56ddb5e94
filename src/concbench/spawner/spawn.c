/* concbench-spawn -r REPORT_FD -t TIMEOUT_MS [-c CGROUP_PROCS_FILE]... [-p CPU,...] [-a] PROGRAM [ARG...]
 *
 * Runs PROGRAM as a child in a process group of its own, waits for it with
 * wait4, kills whatever it left behind and writes one line to REPORT_FD:
 *     status user_us sys_us maxrss_kb voluntary involuntary timed_out strays
 * user_us and sys_us are the trial's CPU time with its children's, and with
 * that of the orphans it left that exited while it ran (reaped here): work
 * it handed to a grandchild is its work too.
 *
 * Why a separate process: on exec, Linux folds the high-water RSS of the
 * old address space into the process's ru_maxrss. A trial spawned straight
 * from the Python harness would report at least the harness's own RSS. This
 * program is small, so what it forks reports the trial's own peak.
 *
 * Why it holds the trial: it is a child subreaper, so every descendant the
 * trial orphans (even one that called setsid to leave the process group)
 * becomes its child, and it kills them all when the trial exits or at the
 * time limit; `strays` counts those still running EXIT_GRACE_MS after the
 * trial exited.
 * It dies with the harness (PR_SET_PDEATHSIG), cleaning up first, and the
 * trial dies with it. With -c it first joins the given cgroups, so the
 * trial and everything it starts are inside their limits. With -p it
 * confines itself, and so the trial, its threads and every process it
 * starts, to the CPUs listed (sched_setaffinity, which they inherit).
 *
 * The trial runs without address-space layout randomisation, unless -a
 * keeps it (fixed_layout()), and with its soft limit of open files raised to
 * the hard one (open_files_to_hard_limit()). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CGROUPS 8
#define MAX_CPUS 4096 /* CPU numbers the set holds: as many as the harness lets a trial have */

/* A helper that exits by itself once it sees the trial gone (the BEAM's
 * erl_child_setup does, a moment after the BEAM) was winding down, not left
 * behind: descendants get this long to exit before they are killed and
 * counted. Past the trial's exit, it is outside every measurement. */
#define EXIT_GRACE_MS 100

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "concbench-spawn: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(127);
}

static void join_cgroup(const char *procs_file)
{
    int fd = open(procs_file, O_WRONLY);
    if (fd < 0 || dprintf(fd, "%d\n", getpid()) < 0)
        fail("cannot join cgroup", procs_file);
    close(fd);
}

/* Runs on the CPUs of a comma-separated list only, or not at all: a trial
 * that ran on more than it was given would be reported as scaling it did not. */
static void confine(const char *list)
{
    cpu_set_t *set = CPU_ALLOC(MAX_CPUS);
    size_t size = CPU_ALLOC_SIZE(MAX_CPUS);
    if (!set)
        fail("cannot confine to CPUs", strerror(errno));
    CPU_ZERO_S(size, set);
    for (const char *at = list; *at;) {
        char *end;
        long cpu = strtol(at, &end, 10);
        if (end == at || cpu < 0 || cpu >= MAX_CPUS || (*end && *end != ','))
            fail("not a list of CPUs", list);
        CPU_SET_S((size_t)cpu, size, set);
        at = *end ? end + 1 : end;
    }
    if (sched_setaffinity(0, size, set) < 0)
        fail("cannot confine to CPUs", strerror(errno));
    CPU_FREE(set);
}

/* Turns address-space layout randomisation off for the trial and all it
 * starts, so that its stack, heap and libraries land where they did in every
 * other trial: one source of variance between trials less. A kernel that
 * refuses (a container's seccomp filter may) leaves the trial randomised,
 * which is no failure: its stderr says so. */
static void fixed_layout(void)
{
    int persona = personality(0xffffffff);
    if (persona == -1 || personality(persona | ADDR_NO_RANDOMIZE) == -1)
        fprintf(stderr, "concbench-spawn: ASLR stays on: personality: %s\n", strerror(errno));
}

/* A trial may open as many descriptors as the hard limit lets any process
 * of this user: a server of 10,000 connections (echo) needs that many, and
 * many runtimes never raise their soft limit themselves (Go and the JVM do,
 * CPython, Ruby and Node do not), which would make the cap a runtime's
 * default rather than the machine's. */
static void open_files_to_hard_limit(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
}

/* Kill every live child and wait for each to exit; orphans of the killed
 * become children in turn. Returns how many were alive (zombies have
 * already exited: they are only reaped). */
static int kill_children(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", getpid());
    FILE *children = fopen(path, "r");
    if (!children)
        return 0;
    pid_t *killed = NULL;
    int count = 0, capacity = 0, pid;
    while (fscanf(children, "%d", &pid) == 1) {
        char stat_path[64], state = 0;
        snprintf(stat_path, sizeof stat_path, "/proc/%d/stat", pid);
        FILE *stat = fopen(stat_path, "r");
        if (stat) {
            if (fscanf(stat, "%*d (%*[^)]) %c", &state) != 1)
                state = 0;
            fclose(stat);
        }
        if (state == 0 || state == 'Z' || kill(pid, SIGKILL) != 0)
            continue;
        if (count == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            killed = realloc(killed, capacity * sizeof *killed);
            if (!killed)
                fail("out of memory", NULL);
        }
        killed[count++] = pid;
    }
    fclose(children);
    for (int i = 0; i < count; i++)
        waitpid(killed[i], NULL, 0);
    free(killed);
    return count;
}

/* Reaps the children that exit within EXIT_GRACE_MS, or until none is left. */
static void await_exits(void)
{
    for (int waited = 0; waited < EXIT_GRACE_MS; waited++) {
        pid_t reaped;
        while ((reaped = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (reaped < 0)
            return; /* ECHILD: nothing left */
        usleep(1000);
    }
}

/* Until no child is left: kill the live ones, reap the dead. One that cannot
 * be killed (another user's setuid program) is left after a second. */
static int sweep(void)
{
    int strays = 0;
    for (int idle = 0; idle < 1000;) {
        int killed = kill_children();
        strays += killed;
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (waitpid(-1, NULL, WNOHANG) < 0)
            break;  /* ECHILD: nothing left */
        if (killed) {
            idle = 0;
        } else {
            idle++;
            usleep(1000);
        }
    }
    return strays;
}

int main(int argc, char **argv)
{
    int report = -1, opt, cgroups = 0, keep_aslr = 0;
    long timeout_ms = -1;
    const char *cgroup[MAX_CGROUPS], *cpus = NULL;
    while ((opt = getopt(argc, argv, "+r:t:c:p:a")) != -1) {
        if (opt == 'r')
            report = atoi(optarg);
        else if (opt == 't')
            timeout_ms = atol(optarg);
        else if (opt == 'c' && cgroups < MAX_CGROUPS)
            cgroup[cgroups++] = optarg;
        else if (opt == 'p')
            cpus = optarg;
        else if (opt == 'a')
            keep_aslr = 1;
        else
            optind = argc;
    }
    if (report < 0 || timeout_ms <= 0 || optind >= argc) {
        fprintf(stderr, "usage: concbench-spawn -r REPORT_FD -t TIMEOUT_MS [-c CGROUP_PROCS]... [-p CPU,...] [-a] PROGRAM [ARG...]\n");
        return 2;
    }
    pid_t harness = getppid();
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    for (int i = 0; i < cgroups; i++)
        join_cgroup(cgroup[i]);
    if (cpus)
        confine(cpus);

    sigset_t watched, original;
    sigemptyset(&watched);
    sigaddset(&watched, SIGCHLD);
    sigaddset(&watched, SIGTERM);
    sigprocmask(SIG_BLOCK, &watched, &original);
    if (getppid() != harness)  /* the harness died before PR_SET_PDEATHSIG took hold */
        return 1;

    pid_t pid = fork();
    if (pid < 0)
        fail("fork", strerror(errno));
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &original, NULL);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(report);
        if (!keep_aslr)
            fixed_layout();
        open_files_to_hard_limit();
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "concbench-spawn: cannot run %s: %s\n", argv[optind], strerror(errno));
        _exit(127);
    }
    close(0);  /* the trial owns stdin: its EOF must not wait for us */

    struct timespec deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    int status = 0, timed_out = 0, exited = 0;
    struct rusage usage = {0};
    struct timeval orphans_user = {0}, orphans_sys = {0};
    while (!exited) {
        /* Reap whatever exited: the trial (with its figures) or an orphan it left. */
        pid_t reaped;
        int any_status;
        struct rusage any_usage;
        while ((reaped = wait4(-1, &any_status, WNOHANG, &any_usage)) > 0) {
            if (reaped == pid) {
                status = any_status;
                usage = any_usage;
                exited = 1;
            } else if (!exited) {
                timeradd(&orphans_user, &any_usage.ru_utime, &orphans_user);
                timeradd(&orphans_sys, &any_usage.ru_stime, &orphans_sys);
            }
        }
        if (exited || timed_out)
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        struct timespec left = {deadline.tv_sec - now.tv_sec, deadline.tv_nsec - now.tv_nsec};
        if (left.tv_nsec < 0) {
            left.tv_sec--;
            left.tv_nsec += 1000000000;
        }
        int signal = left.tv_sec < 0 ? 0 : sigtimedwait(&watched, NULL, &left);
        if (signal == SIGTERM || signal == 0 || (signal < 0 && errno == EAGAIN)) {
            timed_out = 1;  /* at the time limit, or the harness wants it gone */
            kill(-pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
        }
    }
    if (!timed_out)
        await_exits();
    int strays = sweep();
    if (timed_out)
        strays = 0;  /* killed with the trial, not left by it */
    timeradd(&usage.ru_utime, &orphans_user, &usage.ru_utime);
    timeradd(&usage.ru_stime, &orphans_sys, &usage.ru_stime);
    dprintf(report, "%d %lld %lld %ld %ld %ld %d %d\n", status,
            (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
            (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec,
            usage.ru_maxrss, usage.ru_nvcsw, usage.ru_nivcsw, timed_out, strays);
    return 0;
}

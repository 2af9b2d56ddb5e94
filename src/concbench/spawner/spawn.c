/* concbench-spawn REPORT_FD PROGRAM [ARG...]
 *
 * Runs PROGRAM as a child, waits for it with wait4 and writes its wait
 * status and resource usage to REPORT_FD as one line:
 *     status user_us sys_us maxrss_kb voluntary_switches involuntary_switches
 *
 * Why a separate process: on exec, Linux folds the high-water RSS of the
 * old address space into the process's ru_maxrss. A trial spawned straight
 * from the Python harness would report at least the harness's own RSS. This
 * program is small, so what it forks reports the trial's own peak. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: concbench-spawn REPORT_FD PROGRAM [ARG...]\n");
        return 2;
    }
    int report = atoi(argv[1]);
    pid_t pid = fork();
    if (pid < 0) {
        perror("concbench-spawn: fork");
        return 127;
    }
    if (pid == 0) {
        close(report);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "concbench-spawn: cannot run %s: ", argv[2]);
        perror(NULL);
        _exit(127);
    }
    close(0);  /* the trial owns stdin: its EOF must not wait for us */
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("concbench-spawn: wait4");
            return 127;
        }
    }
    dprintf(report, "%d %lld %lld %ld %ld %ld\n", status,
            (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
            (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec,
            usage.ru_maxrss, usage.ru_nvcsw, usage.ru_nivcsw);
    return 0;
}

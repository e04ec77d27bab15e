/* proc.c — the process side of the servers: forking a server (or its initialiser) as the
 * server user, tied to idbench's life; reading a process's start time; stopping a process
 * group; the last lines of a log for error messages.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "readfile.h"
#include "server_int.h"
#include "tmpdir.h"

extern char **environ;

#define POLL_NS 10000000L              /* 10 ms between looks at a stopping process */
#define NS_PER_MS 1000000L
#define EXEC_FAILED 127                /* a child's exit status when exec failed */
#define STAT_STARTTIME_FIELD 22        /* proc(5): starttime, counted from the pid */
#define TAIL_BYTES 1024                /* bytes of a log's end read for a message */
#define TAIL_LINES 3
#define PROC_STAT_LEN 1024
#define KIDS_MAX 256                   /* children of a server killed with it, at most */
#define KILL_WAIT_POLLS 500            /* 5 s for killed processes to disappear */

int srv_no_deathsig;

/* Sleep for POLL_NS. */
static void poll_sleep(void)
{
    struct timespec ts = { 0, POLL_NS };
    nanosleep(&ts, NULL);
}

/* exec argv with idbench's environment but TMPDIR set to the directory of log (the
 * server's own, which its user owns): the TMPDIR idbench runs with (the matrix sets its
 * scratch directory) may not be writable by that user, and mariadb-install-db fails
 * without one. No allocation (after fork). Returns only when exec failed. */
static void exec_in_dir_tmp(const char *const *argv, const char *log)
{
    static const char key[] = "TMPDIR=";
    char tmp[sizeof key + PATH_MAX];
    size_t dir = (size_t)(strrchr(log, '/') ? strrchr(log, '/') - log : 0);
    if (dir == 0 || dir >= PATH_MAX) {
        execv(argv[0], (char *const *)argv);
        return;
    }
    memcpy(tmp, key, sizeof key - 1);
    memcpy(tmp + sizeof key - 1, log, dir);
    tmp[sizeof key - 1 + dir] = 0;
    size_t n = 0;
    while (environ[n]) n++;
    char *env[n + 2];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], key, sizeof key - 1) != 0) env[k++] = environ[i];
    env[k++] = tmp;
    env[k] = NULL;
    execve(argv[0], (char *const *)argv, env);
}

/* In the child: become cred, die with the parent, redirect output to log, exec. Never
 * returns. Messages go to the log (stdout/stderr are idbench's until the dup2). */
static void child_exec(const srv_cred *cred, const char *const *argv, const char *log,
                       int death_sig, pid_t parent)
{
    idb_signals_default();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    if (cred->drop && (setgroups(0, NULL) != 0 || setgid(cred->gid) != 0 ||
                       setuid(cred->uid) != 0))
        _exit(EXEC_FAILED);
    if (!srv_no_deathsig && prctl(PR_SET_PDEATHSIG, death_sig) != 0) _exit(EXEC_FAILED);
    if (getppid() != parent) _exit(EXEC_FAILED);        /* the parent died before prctl */
    int in = open("/dev/null", O_RDONLY);
    int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
        dup2(out, STDERR_FILENO) < 0)
        _exit(EXEC_FAILED);
    exec_in_dir_tmp(argv, log);
    dprintf(STDERR_FILENO, "idbench: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(EXEC_FAILED);
}

int srv_spawn(const srv_cred *cred, const char *const *argv, const char *log, int death_sig,
              pid_t *pid, idb_err *err)
{
    if (death_sig <= 0) death_sig = SIGKILL;
    sigset_t all, old;
    sigfillset(&all);
    pid_t parent = getpid();
    fflush(NULL);
    sigprocmask(SIG_BLOCK, &all, &old);         /* the child must not run our handlers */
    pid_t p = fork();
    if (p == 0) child_exec(cred, argv, log, death_sig, parent);
    int e = errno;
    if (p > 0) {
        setpgid(p, p);                          /* both sides: no race with kill(-p) */
        if (idb_pid_register(p, death_sig) != 0) {
            kill(p, SIGKILL);
            waitpid(p, NULL, 0);
            p = -1;
            e = errno;
        }
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (p < 0) return idb_fail(err, IDB_EIO, "cannot start %s: %s", argv[0], strerror(e));
    *pid = p;
    return 0;
}

int srv_run(const srv_cred *cred, const char *const *argv, const char *log, const char *what,
            idb_err *err)
{
    pid_t pid;
    int rc = srv_spawn(cred, argv, log, SIGKILL, &pid, err), st = 0;
    if (rc) return rc;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    idb_pid_unregister(pid);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    char tail[TAIL_BYTES];
    srv_log_tail(log, tail, sizeof tail);
    return idb_fail(err, IDB_EIO, "%s failed (status %d; log %s): %s", what,
                    WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), log, tail);
}

int srv_capture(const char *const *argv, int with_stderr, char *buf, size_t len)
{
    int fd[2];
    if (len == 0 || pipe2(fd, O_CLOEXEC) != 0) return -1;
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(devnull, STDIN_FILENO);
        dup2(fd[1], STDOUT_FILENO);
        dup2(with_stderr ? fd[1] : devnull, STDERR_FILENO);
        execv(argv[0], (char *const *)argv);
        _exit(EXEC_FAILED);
    }
    close(fd[1]);
    size_t n = 0;
    for (ssize_t r; p > 0 && n + 1 < len && (r = read(fd[0], buf + n, len - 1 - n)) != 0;)
        if (r > 0) n += (size_t)r;
        else if (errno != EINTR) break;
    close(fd[0]);
    int st = 0;
    while (p > 0 && waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    buf[n] = 0;
    return p > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int srv_capture_version(const char *bin, char *buf, size_t len)
{
    const char *argv[] = { bin, "--version", NULL };
    int st = srv_capture(argv, 0, buf, len);
    if (len) buf[strcspn(buf, "\n")] = 0;
    return st == 0 && len && buf[0] ? 0 : -1;
}

/* Read /proc/PID/stat into buf; return the text after the command's closing ')' (starting
 * with " STATE PPID ..."), or NULL when pid does not exist. */
static char *proc_stat(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = 0;
    return strrchr(buf, ')');                  /* the command may hold spaces and ')' */
}

unsigned long long srv_proc_starttime(pid_t pid)
{
    char buf[PROC_STAT_LEN];
    char *p = proc_stat(pid, buf, sizeof buf);
    if (!p || p[1] == 0 || p[2] == 'Z') return 0;          /* a zombie has ended */
    for (int field = 2; field < STAT_STARTTIME_FIELD && p; field++) p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* utime + stime + cutime + cstime of pid (fields 14-17 of /proc/PID/stat), in clock ticks:
 * its own CPU time and that of the children it has reaped. -1 when pid does not exist. */
static long long proc_cpu_ticks(pid_t pid)
{
    char buf[PROC_STAT_LEN];
    char *p = proc_stat(pid, buf, sizeof buf);
    long long t[4];
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld %lld %lld",
                     &t[0], &t[1], &t[2], &t[3]) != 4)
        return -1;
    return t[0] + t[1] + t[2] + t[3];
}

/* The parent pid of pid from /proc, 0 when unknown. */
pid_t srv_proc_ppid(pid_t pid)
{
    char buf[PROC_STAT_LEN];
    char *p = proc_stat(pid, buf, sizeof buf);
    return p && p[1] && p[2] ? (pid_t)strtol(p + 4, NULL, 10) : 0;
}

/* The process group of pid from /proc (field 5), 0 when unknown. */
static pid_t proc_pgrp(pid_t pid)
{
    char buf[PROC_STAT_LEN];
    char *p = proc_stat(pid, buf, sizeof buf);
    long pgrp = 0;
    if (!p || sscanf(p + 1, " %*c %*d %ld", &pgrp) != 1) return 0;     /* state ppid pgrp */
    return (pid_t)pgrp;
}

/* readlink of /proc/PID/what into buf; 0 or -1. */
static int proc_link(pid_t pid, const char *what, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    ssize_t n = readlink(path, buf, len - 1);
    if (n < 0 || (size_t)n >= len - 1) return -1;
    buf[n] = 0;
    return 0;
}

/* 1 when path is dir or lies under it. */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* 1 when an argument of pid's command line is dir or under it (also after a '='). */
static int cmdline_names(pid_t pid, const char *dir)
{
    char path[64], buf[PROC_STAT_LEN * 4];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    for (char *a = buf; a < buf + n; a += strlen(a) + 1) {
        const char *eq = strchr(a, '=');
        if (under(a, dir) || (eq && under(eq + 1, dir))) return 1;
    }
    return 0;
}

int srv_proc_is_server(pid_t pid, unsigned long long start, const char *bin, const char *dir)
{
    char exe[PATH_MAX], want[PATH_MAX], cwd[PATH_MAX], real[PATH_MAX];
    if (pid <= 1 || !start || srv_proc_starttime(pid) != start) return 0;
    if (!bin || !realpath(bin, want) || proc_link(pid, "exe", exe, sizeof exe) != 0 ||
        strcmp(exe, want) != 0)
        return 0;
    if (proc_pgrp(pid) != pid) return 0;                /* a group idbench did not make */
    const char *d = realpath(dir, real) ? real : dir;
    if (proc_link(pid, "cwd", cwd, sizeof cwd) == 0 && under(cwd, d)) return 1;
    return cmdline_names(pid, d) || cmdline_names(pid, dir);
}

/* Up to max children of pid (by /proc) into kids; returns how many. */
static int children(pid_t pid, pid_t *kids, int max)
{
    DIR *d = opendir("/proc");
    int n = 0;
    for (struct dirent *e; d && n < max && (e = readdir(d));) {
        pid_t p = (pid_t)strtol(e->d_name, NULL, 10);
        if (p > 0 && srv_proc_ppid(p) == pid) kids[n++] = p;
    }
    if (d) closedir(d);
    return n;
}

long long srv_proc_tree_cpu_ns(pid_t pid)
{
    long long ticks = proc_cpu_ticks(pid);
    if (ticks < 0) return -1;
    pid_t kids[4096];
    int n = children(pid, kids, (int)(sizeof kids / sizeof kids[0]));
    for (int i = 0; i < n; i++) {
        long long k = proc_cpu_ticks(kids[i]);      /* one that just ended counts as 0 */
        if (k > 0) ticks += k;
    }
    long hz = sysconf(_SC_CLK_TCK);
    return ticks * (1000000000LL / (hz > 0 ? hz : 100));
}

/* 1 when process p (its /proc/P/stat text from the ')' at q) is a leftover of the server
 * that led group pgid, as uid, binary bin, in dir, started at `since` or later: of its group,
 * or, with setsid children (postgres's), its binary running as uid with its cwd in dir. */
static int leftover(pid_t p, const char *q, pid_t pgid, uid_t uid, const char *bin,
                    const char *dir, unsigned long long since)
{
    char state = 0, exe[PATH_MAX], cwd[PATH_MAX], path[64];
    long pgrp = 0;
    if (sscanf(q + 1, " %c %*d %ld", &state, &pgrp) != 2 || state == 'Z' || state == 'X')
        return 0;                               /* a zombie holds nothing */
    if (pgrp == pgid) return 1;
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d", (int)p);
    unsigned long long start = srv_proc_starttime(p);
    return stat(path, &st) == 0 && st.st_uid == uid && start >= since &&
           proc_link(p, "exe", exe, sizeof exe) == 0 && strcmp(exe, bin) == 0 &&
           proc_link(p, "cwd", cwd, sizeof cwd) == 0 && under(cwd, dir);
}

void srv_leftovers_gone(pid_t pgid, uid_t uid, const char *bin, const char *dir,
                        unsigned long long since)
{
    char want[PATH_MAX], real[PATH_MAX];
    if (!realpath(bin, want)) snprintf(want, sizeof want, "%s", bin);
    if (!realpath(dir, real)) snprintf(real, sizeof real, "%s", dir);
    for (int t = 0; t < KILL_WAIT_POLLS; t++) {
        DIR *d = opendir("/proc");
        int left = 0;
        for (struct dirent *e; d && (e = readdir(d));) {
            pid_t p = (pid_t)strtol(e->d_name, NULL, 10);
            char buf[PROC_STAT_LEN];
            char *q = p > 1 ? proc_stat(p, buf, sizeof buf) : NULL;
            if (q && leftover(p, q, pgid, uid, want, real, since)) {
                kill(p, SIGKILL);
                left = 1;
            }
        }
        if (d) closedir(d);
        if (!left) return;
        poll_sleep();
    }
}

/* 1 while pid exists (a child of ours is reaped when it has exited). */
static int exists(pid_t pid, int own_child)
{
    if (own_child) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        return !(r == pid || (r < 0 && errno == ECHILD));
    }
    return srv_proc_starttime(pid) != 0;
}

void srv_kill_tree(pid_t pid, int own_child)
{
    pid_t kids[KIDS_MAX];
    unsigned long long start[KIDS_MAX];
    int n = children(pid, kids, KIDS_MAX);
    for (int i = 0; i < n; i++) start[i] = srv_proc_starttime(kids[i]);
    if (own_child || proc_pgrp(pid) == pid) kill(-pid, SIGKILL);   /* its own group only */
    kill(pid, SIGKILL);
    for (int i = 0; i < n; i++) kill(kids[i], SIGKILL);
    if (own_child) while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    for (int t = 0; t < KILL_WAIT_POLLS; t++) {
        int left = !own_child && exists(pid, 0);
        for (int i = 0; i < n; i++) left |= start[i] && srv_proc_starttime(kids[i]) == start[i];
        if (!left) return;
        poll_sleep();
    }
}

int srv_stop_pid(pid_t pid, int sig, int own_child, int timeout_ms)
{
    int group = own_child || proc_pgrp(pid) == pid;     /* a group idbench made */
    kill(pid, sig);
    for (long waited = 0; waited < (long)timeout_ms * NS_PER_MS; waited += POLL_NS) {
        if (!exists(pid, own_child)) {
            if (group) kill(-pid, SIGKILL);    /* whatever of its group is left */
            return 0;
        }
        poll_sleep();
    }
    srv_kill_tree(pid, own_child);
    return 1;
}

void srv_log_tail(const char *path, char *buf, size_t len)
{
    char raw[TAIL_BYTES + 1];
    buf[0] = 0;
    idb_err why = { 0 };                        /* in the server user's directory: a regular */
    int fd = idb_open_input(path, SIZE_MAX, IDB_EIO, &why);   /* file only, never a link */
    if (fd < 0) return;
    off_t end = lseek(fd, 0, SEEK_END), start = end > TAIL_BYTES ? end - TAIL_BYTES : 0;
    ssize_t n = pread(fd, raw, TAIL_BYTES, start);
    close(fd);
    if (n <= 0) return;
    while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == ' ')) n--;
    raw[n] = 0;
    char *p = raw + n;
    for (int lines = 0; p > raw && lines < TAIL_LINES; p--)
        if (p[-1] == '\n' && ++lines == TAIL_LINES) break;
    size_t o = 0;
    for (; *p && o + 4 < len; p++) {
        if (*p == '\n') o += (size_t)snprintf(buf + o, len - o, " | ");
        else if ((unsigned char)*p >= ' ') buf[o++] = *p;
    }
    buf[o < len ? o : len - 1] = 0;
}

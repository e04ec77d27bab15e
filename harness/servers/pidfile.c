/* pidfile.c — the pid file a running server leaves in its dir (idbench-server.pid), and how
 * a later run or `idbench clean` finds and stops a server left by a killed idbench.
 *
 * Format, one "key value" a line:  pid 1234 / kind postgres / start 5678 (field 22 of
 * /proc/PID/stat, so a recycled pid is never signalled) / sockdir /tmp/idb-XXXXXX.
 */
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_int.h"
#include "tmpdir.h"

#define STALE_STOP_TIMEOUT_MS 20000    /* SIGTERM, then SIGKILL after this */
#define CLEAN_DEPTH_MAX 3              /* DIR/shard-K/idbench-server.pid is depth 2 */
#define NFTW_FDS 16

int srv_pidfile_write(const idb_server *s, idb_err *err)
{
    char text[PATH_MAX + 128];
    snprintf(text, sizeof text, "pid %d\nkind %s\nstart %llu\nsockdir %s\n", (int)s->pid,
             s->kind->name, s->starttime, s->sockdir);
    idb_server root_owned = *s;
    root_owned.cred.drop = 0;                  /* the server user need not write it */
    return srv_write_file(&root_owned, s->pidfile, text, err);
}

/* 1 when sockdir is one of ours: /tmp/idb-XXXXXX and nothing else. */
static int our_sockdir(const char *d)
{
    size_t n = strlen(SRV_SOCKDIR_PREFIX);
    return strncmp(d, SRV_SOCKDIR_PREFIX, n) == 0 && d[n] && !strchr(d + n, '/') &&
           !strstr(d, "..");
}

int srv_pidfile_clean(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    long pid = 0;
    unsigned long long start = 0;
    char line[PATH_MAX], sockdir[PATH_MAX] = "", kind[64] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "pid ", 4) == 0) pid = strtol(line + 4, NULL, 10);
        else if (strncmp(line, "start ", 6) == 0) start = strtoull(line + 6, NULL, 10);
        else if (strncmp(line, "kind ", 5) == 0)
            snprintf(kind, sizeof kind, "%.*s", (int)sizeof kind - 1, line + 5);
        else if (strncmp(line, "sockdir ", 8) == 0)
            snprintf(sockdir, sizeof sockdir, "%.*s", (int)sizeof sockdir - 9, line + 8);
    }
    fclose(f);
    int stopped = 0;
    if (pid > 1 && start && srv_proc_starttime((pid_t)pid) == start) {
        const srv_kind *k = srv_find_kind(kind);
        srv_stop_pid((pid_t)pid, k ? k->stop_signal : SIGTERM, 0, STALE_STOP_TIMEOUT_MS);
        stopped = 1;
    }
    if (our_sockdir(sockdir)) idb_tmpdir_remove(sockdir);
    unlink(path);
    return stopped;
}

static int clean_count;                        /* nftw has no user pointer */

/* nftw's callback: clean each pid file, skip what is deeper than CLEAN_DEPTH_MAX. */
static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    if (type == FTW_D && ftw->level >= CLEAN_DEPTH_MAX) return FTW_SKIP_SUBTREE;
    if (type == FTW_F && strcmp(path + ftw->base, SRV_PIDFILE) == 0)
        clean_count += srv_pidfile_clean(path);
    return FTW_CONTINUE;
}

int idb_servers_clean(const char *dir, int *stopped, idb_err *err)
{
    struct stat st;
    *stopped = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "%s is not a directory", dir);
    clean_count = 0;
    if (nftw(dir, visit, NFTW_FDS, FTW_PHYS | FTW_ACTIONRETVAL) != 0)
        return idb_fail(err, IDB_EIO, "cannot walk %s: %s", dir, strerror(errno));
    *stopped = clean_count;
    return 0;
}

/* srv_postgres.c — the postgres server kind: PostgreSQL 15 from Debian, a cluster made by
 * initdb in DIR/data (a standby's, conf clone_of: pg_basebackup -R of its primary)
 * (superuser "idbench", trust on the private socket only; with TCP the run's password,
 * scram-sha-256, on loopback), the settings in DIR/data/idbench.conf (included by
 * postgresql.conf) and the listen settings on the command line too, the hba
 * file DIR/data/idbench_hba.conf, ready when postmaster.pid says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"
#include "server_int.h"

#define PG_MIN_FREE_BYTES (256ull << 20)  /* free space asked by the preflight: data, logs */
#define PG_BIN "/usr/lib/postgresql/15/bin"
#define PG_LOCK_SHMEM_LINE 7            /* postmaster.pid: "KEY ID" of its SysV segment */
#define PG_SOCKET_PORT 5432            /* names the socket file when there is no TCP port */
#define PG_DB_USER "idbench"
#define PG_HBA "idbench_hba.conf"        /* the hba file idbench writes (hba_file=) */
#define PG_CONF_LEN 8192
#define PIDFILE_MAX 4096               /* postmaster.pid is a few lines */
#define PIDFILE_STATUS_LINE 8          /* postmaster.pid: the line that says "ready" */
#define PIDFILE_LINE_LEN 1024
#define PG_PARTIAL SRV_PARTIAL           /* initdb's target until it is complete */
#define PG_PWFILE "initdb-pw"          /* initdb's copy of the password (pg_init_auth) */
#define PG_INCLUDE "include_if_exists = 'idbench.conf'"

/* The socket file: SOCKDIR/.s.PGSQL.PORT. */
static int pg_socket_path(idb_server *s)
{
    int port = s->port ? s->port : PG_SOCKET_PORT;
    int n = snprintf(s->socket, sizeof s->socket, "%s/.s.PGSQL.%d", s->sockdir, port);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* The System V shared memory segment a killed postmaster left (its key and id on the lock
 * file's line PG_LOCK_SHMEM_LINE): removed when nothing is attached to it and its key is the
 * recorded one (postgres would remove it itself, but only while the lock file names it). */
static void pg_stale_shmem(const char *key_and_id, uid_t uid)
{
    long key = 0;
    int id = -1;
    struct shmid_ds ds;
    if (sscanf(key_and_id, "%ld %d", &key, &id) != 2 || id < 0) return;
    if (shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 0 && ds.shm_perm.__key == key &&
        ds.shm_perm.uid == uid)                  /* the server user's, not another's */
        shmctl(id, IPC_RMID, NULL);
}

/* A postmaster.pid left in data by a server that was killed (SIGKILL leaves it) and is gone
 * or a zombie not yet reaped: its shared memory segment released (pg_stale_shmem) and the
 * file removed, or postgres refuses to start ("Is another postmaster (PID N) running?" — a
 * zombie still answers kill(N, 0)). A live process's lock stays. */
static int pg_stale_lock(const char *data, uid_t uid, idb_err *err)
{
    char path[PATH_MAX + 32], line[PIDFILE_LINE_LEN], shm[PIDFILE_LINE_LEN] = "";
    snprintf(path, sizeof path, "%s/postmaster.pid", data);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0) close(fd);
        return 0;
    }
    long pid = fgets(line, sizeof line, f) ? strtol(line, NULL, 10) : 0;
    for (int i = 2; i <= PG_LOCK_SHMEM_LINE && fgets(shm, sizeof shm, f); i++) {}
    fclose(f);
    if (pid <= 1 || srv_proc_starttime((pid_t)pid) != 0) return 0;
    pg_stale_shmem(shm, uid);
    if (unlink(path) != 0 && errno != ENOENT)
        return idb_fail(err, IDB_EIO, "postgres: cannot remove the stale %s: %s", path,
                        strerror(errno));
    return 0;
}

/* The state of the data in the server directory dfd: 0 none, 1 complete (PG_VERSION,
 * global/pg_control, the include of idbench.conf: initdb and idbench finished), -1
 * half-made (data.partial, or data without those). */
static int pg_data_state(int dfd)
{
    if (srv_has(dfd, PG_PARTIAL)) return -1;
    if (!srv_has(dfd, "data")) return 0;
    char text[PG_CONF_LEN * 4] = "";
    int fd = openat(dfd, "data/postgresql.conf", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0) close(fd);
    text[n > 0 ? n : 0] = 0;
    if (fd >= 0 && n == (ssize_t)sizeof text - 1) return 1;     /* longer: a user's, kept */
    return srv_has(dfd, "data/PG_VERSION") && srv_has(dfd, "data/global/pg_control") &&
           strstr(text, PG_INCLUDE) ? 1 : -1;
}

/* `idbench clean`: remove data.partial, and data when it is half-made; and the copy of the
 * password an initdb killed before its end left (PG_PWFILE). */
static void pg_clean_partial(int dfd, const char *path, uid_t uid)
{
    srv_clean_partial(dfd, path, uid, pg_data_state);
    unlinkat(dfd, PG_PWFILE, 0);                /* a name in dfd: no symlink followed */
}

/* initdb's authentication arguments into argv (4 slots): trust on the socket (its
 * directory is 0700), and on TCP the password (--pwfile, a copy of the secret the server
 * user can read, at pwfile: the caller removes it) or, without TCP, reject. */
static int pg_init_auth(idb_server *s, const char *pwfile, char *pwarg, size_t len,
                        const char **argv, idb_err *err)
{
    argv[0] = "--auth-local=trust";
    argv[1] = s->secret[0] ? "--auth-host=scram-sha-256" : "--auth-host=reject";
    if (!s->secret[0]) return 0;
    char text[sizeof s->secret + 1];
    snprintf(text, sizeof text, "%s\n", s->secret);
    snprintf(pwarg, len, "--pwfile=%s", pwfile);
    argv[2] = pwarg;
    return srv_write_private(s, pwfile, text, err);
}

/* A standby's data: pg_basebackup (beside initdb) of the running server s->clone_of names,
 * into data (DIR/data.partial), with -R (standby.signal and primary_conninfo: it streams
 * from that server), then renamed DIR/data as initdb's is. */
static int pg_clone(idb_server *s, const char *data, idb_err *err)
{
    char bin[PATH_MAX + 16];
    const char *slash = strrchr(s->bin[1], '/');
    snprintf(bin, sizeof bin, "%.*s/pg_basebackup", slash ? (int)(slash - s->bin[1]) : 1,
             slash ? s->bin[1] : ".");
    const char *argv[] = { bin, "-D", data, "-d", s->clone_of, "-R", "-X", "stream",
                           "-c", "fast", "--no-sync", NULL };
    int rc = srv_run(&s->cred, argv, s->log, "pg_basebackup", err);
    if (!rc && renameat(s->dfd, PG_PARTIAL, s->dfd, "data") != 0)
        rc = idb_fail(err, IDB_EIO, "postgres: cannot rename %s: %s", data, strerror(errno));
    if (rc) srv_rmtree_at(s->dfd, PG_PARTIAL, srv_cred_uid(&s->cred), data);
    return rc;
}

/* A killed server's lock and segment released at once (a run that never restarts it, a
 * failover's old primary, would otherwise leave its segment on the host). */
static void pg_gone(idb_server *s)
{
    char data[PATH_MAX + 16];
    idb_err ignored = { 0 };
    snprintf(data, sizeof data, "%s/data", s->dir);
    pg_stale_lock(data, srv_cred_uid(&s->cred), &ignored);
}

/* initdb into DIR/data.partial (with pg_init_auth's arguments), the include of
 * idbench.conf, then renamed DIR/data: a data directory is there only when complete.
 * Half-made data (a start killed during initdb) is refused: `idbench clean DIR` removes it.
 * On existing data, the lock a killed server left is removed (pg_stale_lock). */
static int pg_init(idb_server *s, idb_err *err)
{
    char data[PATH_MAX + 16], probe[PATH_MAX + 32], pwfile[PATH_MAX + 16];
    char pwarg[PATH_MAX + 32];
    int state = pg_data_state(s->dfd);
    snprintf(data, sizeof data, "%s/data", s->dir);
    if (state > 0) return pg_stale_lock(data, srv_cred_uid(&s->cred), err);
    if (state < 0) {
        s->keep_record = 1;
        return idb_fail(err, IDB_EINPUT, "postgres: %s holds a half-made cluster (an "
                        "interrupted start): run `idbench clean DIR` to remove it", s->dir);
    }
    snprintf(data, sizeof data, "%s/" PG_PARTIAL, s->dir);
    if (s->clone_of[0]) return pg_clone(s, data, err);
    int used = 0, rc = srv_template_copy(s, &used, err);    /* initdb's copy (template.c) */
    if (rc || used) return rc;
    snprintf(pwfile, sizeof pwfile, "%s/" PG_PWFILE, s->dir);
    const char *argv[] = { s->bin[1], "-D", data, "-U", PG_DB_USER, "-E", "UTF8",
                           "--locale=C", "--no-sync", NULL, NULL, NULL, NULL };
    rc = pg_init_auth(s, pwfile, pwarg, sizeof pwarg, argv + 9, err);
    if (!rc) rc = srv_run(&s->cred, argv, s->log, "initdb", err);
    unlinkat(s->dfd, PG_PWFILE, 0);
    snprintf(probe, sizeof probe, "%s/postgresql.conf", data);
    if (!rc) rc = srv_append_file(s, probe, PG_INCLUDE "\n", err);
    if (!rc && renameat(s->dfd, PG_PARTIAL, s->dfd, "data") != 0)
        rc = idb_fail(err, IDB_EIO, "postgres: cannot rename %s: %s", data, strerror(errno));
    if (rc) srv_rmtree_at(s->dfd, PG_PARTIAL, srv_cred_uid(&s->cred), data);
    return rc;
}

/* The listen settings, the same in idbench.conf and on the command line (pg_argv), so
 * that a config file missing or cut short cannot fall back to port 5432, every address or
 * /var/run/postgresql: value i of PG_LISTEN into buf. */
#define PG_LISTEN 5
static void pg_listen(const idb_server *s, int i, char *buf, size_t len)
{
    switch (i) {
    case 0: snprintf(buf, len, "listen_addresses=%s", s->port ? SRV_LOOPBACK : ""); break;
    case 1: snprintf(buf, len, "port=%d", s->port ? s->port : PG_SOCKET_PORT); break;
    case 2: snprintf(buf, len, "unix_socket_directories=%s", s->sockdir); break;
    case 3: snprintf(buf, len, "unix_socket_permissions=0700"); break;
    default: snprintf(buf, len, "hba_file=%s/data/" PG_HBA, s->dir); break;
    }
}

/* DIR/data/idbench_hba.conf, the only hba file the server reads (hba_file): trust on the
 * socket (a 0700 directory; replication too: a standby copies and streams over it), the
 * run's password (scram-sha-256) on loopback TCP, nothing else (no line: refused). */
static int pg_hba(idb_server *s, idb_err *err)
{
    char text[PG_CONF_LEN], path[PATH_MAX + 32];
    snprintf(text, sizeof text, "# written by idbench at every start\n"
             "local all all trust\nlocal replication all trust\n%s", s->secret[0] ?
             "host all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n"
             : "");
    snprintf(path, sizeof path, "%s/data/" PG_HBA, s->dir);
    return srv_write_file(s, path, text, err);
}

/* DIR/data/idbench.conf: where it listens (pg_listen), dynamic shared memory as files in
 * data/pg_dynshmem (not /dev/shm, where a killed server's segments would outlive DIR), then
 * the settings, each quoted; and the hba file (pg_hba). */
static int pg_conf(idb_server *s, idb_err *err)
{
    char text[PG_CONF_LEN], path[PATH_MAX + 32], name[128], kv[PATH_MAX + 64];
    int n = snprintf(text, sizeof text, "# written by idbench at every start\n"
                     "dynamic_shared_memory_type = 'mmap'\n");
    for (int i = 0; i < PG_LISTEN; i++) {
        pg_listen(s, i, kv, sizeof kv);
        char *eq = strchr(kv, '=');
        *eq = 0;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s = '%s'\n", kv, eq + 1);
    }
    for (int i = 0; i < s->nsettings && n < (int)sizeof text; i++) {
        const char *v;
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "postgres: bad setting '%s'", s->settings[i]);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s = '%s'\n", name, v);
    }
    if (n >= (int)sizeof text) return idb_fail(err, IDB_EINPUT, "postgres: too many settings");
    snprintf(path, sizeof path, "%s/data/idbench.conf", s->dir);
    int rc = srv_write_file(s, path, text, err);
    return rc ? rc : pg_hba(s, err);
}

/* postgres -D DIR/data -c SETTING... (pg_listen's), in the foreground. */
static void pg_argv(idb_server *s, const char **argv, size_t max)
{
    size_t n = 0;
    snprintf(s->arg[0], sizeof s->arg[0], "%s/data", s->dir);
    const char *a[] = { s->bin[0], "-D", s->arg[0] };
    for (size_t i = 0; i < sizeof a / sizeof *a && n < max; i++) argv[n++] = a[i];
    for (int i = 0; i < PG_LISTEN && i + 1 < SRV_ARGS_MAX && n + 1 < max; i++) {
        pg_listen(s, i, s->arg[i + 1], sizeof s->arg[i + 1]);
        argv[n++] = "-c";
        argv[n++] = s->arg[i + 1];
    }
}

/* Ready when DIR/data/postmaster.pid names this process and its status line says "ready". */
static int pg_ready(idb_server *s)
{
    char path[PATH_MAX + 32], line[PIDFILE_LINE_LEN];
    snprintf(path, sizeof path, "%s/data/postmaster.pid", s->dir);
    idb_err why = { 0 };                        /* the server user's file: never a symlink, */
    int fd = idb_open_input(path, PIDFILE_MAX, IDB_EIO, &why);   /* a FIFO, a device */
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0) close(fd);
        return 0;
    }
    int ok = 0;
    for (int i = 1; fgets(line, sizeof line, f); i++) {
        if (i == 1 && atoi(line) != (int)s->pid) break;
        if (i == PIDFILE_STATUS_LINE) ok = strncmp(line, "ready", strlen("ready")) == 0;
    }
    fclose(f);
    return ok;
}

const srv_kind srv_postgres = {
    .name = "postgres",
    .user = "postgres",
    .db_user = PG_DB_USER,
    .package = "postgresql-15",
    .bins = { { "IDBENCH_POSTGRES", PG_BIN "/postgres" }, { "IDBENCH_INITDB", PG_BIN "/initdb" } },
    .stop_signal = SIGINT,             /* fast shutdown: SIGTERM would wait for clients */
    .death_signal = SIGQUIT,           /* immediate shutdown: unlike SIGKILL, the postmaster
                                          still removes its shared memory segment */
    .min_free_bytes = PG_MIN_FREE_BYTES,
    .version_marker = "(PostgreSQL) ",
    .product = "PostgreSQL",
    .secret_kept = "data/PG_VERSION",  /* the password is set by initdb, kept in the data */
    .conf_file = "data/idbench.conf",
    .templated = 1,                    /* not with TCP: initdb sets the password */
    .socket_path = pg_socket_path,
    .init = pg_init,
    .conf = pg_conf,
    .argv = pg_argv,
    .ready = pg_ready,
    .clean_partial = pg_clean_partial,
    .gone = pg_gone,
};

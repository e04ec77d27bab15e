/* server.h — private database server processes (PostgreSQL, MariaDB, Redis, etcd) that idbench
 * starts for a store's shard or a counter backend, watches, kills (faults) and stops.
 *
 * A server runs in the foreground as a child of idbench, in its own process group, as the
 * package's user (postgres, mysql, redis) when idbench runs as root (IDBENCH_SERVER_USER
 * overrides; a missing user is created: users.c) and as idbench's own user otherwise. Its
 * files (data, config, log) live in conf->dir
 * (0700, owned by the server user); its Unix socket lives in a short private directory
 * /tmp/idb-PID-START-XXXXXX (socket paths are limited to 107 bytes; PID and START name the
 * idbench process that owns it) that stopping it removes. It dies
 * with idbench: PR_SET_PDEATHSIG(SIGKILL), a kill of every registered server in the signal
 * handler of tmpdir.h, idb_servers_stop_all() for orderly exits; a server left by a killed
 * run is found by its record P/NAME.idbench-pid beside conf->dir = P/NAME (idb_servers_clean,
 * and the next start in the same dir). docs/servers.md "Trust model" says what is trusted.
 * docs/servers.md has the details.
 *
 * Threads: start a server from a thread that lives as long as the server (the main thread):
 * PR_SET_PDEATHSIG fires when the thread that forked the server ends. All calls on one
 * server from one thread at a time.
 */
#ifndef IDB_SERVER_H
#define IDB_SERVER_H

#include <stddef.h>

#include "err.h"

typedef struct idb_server idb_server;

typedef struct idb_server_conf {
    const char *kind;                 /* "postgres", "mariadb", "redis", "etcd" */
    const char *dir;                  /* the server's files go here (data, config,
                                         log); made if missing; 0700, owned by the server user */
    const char *const *settings;      /* "name=value" config settings (kind's names), */
    int nsettings;                    /*   written into the kind's config file */
    int tcp;                          /* 0: Unix socket only; 1: also loopback TCP, free port,
                                         with a password made for this start (secret.c) */
    const char *secret;               /* tcp: this password instead of a new one (the
                                         servers of one replicated group share it), or NULL */
    const char *clone_of;             /* postgres: a running server's libpq conninfo (its Unix
                                         socket): new data is its copy (pg_basebackup -R), a
                                         streaming standby of it, not initdb's; NULL: initdb */
} idb_server_conf;

/* Check, before starting, that conf's kind exists, its binaries are there, the filesystem of
 * conf->dir has the kind's minimum of free space, and the server user can reach conf->dir
 * (every existing parent searchable; a user a start would create is not created here, and
 * its reach is checked by the start). Returns 0, IDB_EINPUT (unknown kind, bad setting, a
 * bad IDBENCH_SERVER_USER) or IDB_EIO with one message that says what to fix. */
int idb_server_preflight(const idb_server_conf *c, idb_err *err);

/* Whether kind's binaries are on this machine (the same paths and environment overrides
 * a start uses), without starting anything: 0 with "Product X.Y.Z" in version (cap
 * bytes), IDB_EINPUT for an unknown kind, IDB_EIO with one message naming the missing
 * binary and its package. For a store's `available` hook (store.h). */
int idb_server_installed(const char *kind, char *version, size_t cap, idb_err *err);

/* Run the preflight, stop a stale server of a killed run in conf->dir, initialise the data
 * directory when new, write the config, start the server in the foreground as a child and
 * return once it accepts connections. *out is the caller's until idb_server_stop. Returns 0,
 * IDB_EINPUT, IDB_ENOMEM or IDB_EIO (a server that exits while starting: the last lines of
 * its log in the message, with the log's path). */
int idb_server_start(const idb_server_conf *c, idb_server **out, idb_err *err);

/* The socket file's path (short, private), and its directory (libpq's host=). Owned by s. */
const char *idb_server_socket(const idb_server *s);
const char *idb_server_socket_dir(const idb_server *s);

/* The loopback TCP port, 0 when the server listens on its Unix socket only. */
int idb_server_port(const idb_server *s);

/* The database user to connect as ("idbench" for postgres, "root" for mariadb, "default"
 * for redis). On the Unix socket (in a 0700 directory) postgres and mariadb ask no
 * password; on TCP every kind asks the run's secret, and redis asks it on the socket too
 * when the server listens on TCP. */
const char *idb_server_user(const idb_server *s);

/* The file holding the server's password (DIR/idbench-secret: one line, 0600, owned by
 * idbench's user; read it with idb_secret_read of secret.h), or "" when the server has no
 * TCP listener and so no password. Owned by s. */
const char *idb_server_secret_file(const idb_server *s);

/* A new secret like a server's TCP password (secret.c: 16 bytes of getrandom(2) as 32 hex
 * characters) into buf (cap >= 33 bytes), for a password idbench sets between its own
 * servers (the spider store's head logs in to its backends with one). Returns 0, IDB_EINPUT
 * (cap too small) or IDB_EIO (getrandom failed). */
int idb_server_secret_new(char *buf, size_t cap, idb_err *err);

/* The server's version from its binary, e.g. "PostgreSQL 15.18", "MariaDB 10.11.14",
 * "Redis 7.0.15". Owned by s. */
const char *idb_server_version(const idb_server *s);

/* The server's main process id (0 when it is not running). */
int idb_server_pid(const idb_server *s);

/* CPU time the server has used since it started (its processes, live and ended), in ns at
 * the clock tick's resolution (10 ms): a run's share is the difference of two calls.
 * -1 when it is not running. */
long long idb_server_cpu_ns(const idb_server *s);

/* CPU time (ns, clock ticks as above) of one live process of the server, pid, a direct
 * child of its main process (a postgres backend): -1 when pid is not one. A store subtracts
 * the backend of its own sampling session this way. */
long long idb_server_child_cpu_ns(const idb_server *s, int pid);

/* 1 while the server runs, 0 once it has exited (it is reaped then). */
int idb_server_alive(idb_server *s);

/* A fault: SIGKILL the server's process group and reap it; its socket directory and data
 * stay for idb_server_restart. Returns 0, or IDB_EIO when it was not running. */
int idb_server_kill(idb_server *s, idb_err *err);

/* Start a server that was killed (or that died) again on the same data, config, socket and
 * port; returns once it accepts connections. Returns 0, IDB_EINPUT when it still runs, or
 * IDB_EIO as idb_server_start. */
int idb_server_restart(idb_server *s, idb_err *err);

/* Stop the server in order (SIGTERM, SIGKILL after a timeout), reap it, remove its record
 * and socket directory, and free s. s may be NULL. */
void idb_server_stop(idb_server *s);

/* Stop every server this process started and has not stopped (for exit paths). */
void idb_servers_stop_all(void);

/* Stop the stale servers whose records (*.idbench-pid) lie under dir, at most a few levels
 * down, when each is proved to be the server started there (start time, binary, directory:
 * docs/servers.md "Trust model"; nothing else is signalled); remove those records, their
 * socket directories and the half-made data of interrupted starts. A record that fails the
 * checks is left and named on stderr. *stopped is the number of processes stopped. dir
 * itself is kept. Returns 0, IDB_EINPUT (dir is not a directory, or not trusted) or IDB_EIO
 * (dir's run, or a server below, is live: "in use by pid N", nothing touched). */
int idb_servers_clean(const char *dir, int *stopped, idb_err *err);

/* Remove from /tmp the socket directories of ended runs: those whose owner (the idbench
 * process named in the directory's name) is gone and whose server is gone (no socket in it
 * accepts a connection); never a symlink, another user's directory, a name not made by
 * idbench, or one whose owner still runs (sockdir.c has the rules). Every start does it;
 * `idbench clean` too. Returns how many were removed (0 when /tmp cannot be read). */
int idb_servers_sweep(void);

/* Check, before anything is created, that dir can be trusted: every existing component of
 * its path is a directory owned by root or idbench's user and not writable by another user
 * unless sticky (sshd's StrictModes rule), and no symlink on the way is another user's.
 * Returns 0 or IDB_EINPUT with one message. */
int idb_server_dir_check(const char *dir, idb_err *err);

/* Take the lock of the run in dir (dir/.idbench-lock, flock) for the caller's life: *fd
 * holds it (idb_run_unlock releases it). `idbench clean dir` refuses a locked dir. Returns 0, or
 * IDB_EIO ("dir is in use by pid N", or the lock file cannot be made). */
int idb_run_lock(const char *dir, int *fd, idb_err *err);

/* Release the lock idb_run_lock took on dir (fd) and remove its file. */
void idb_run_unlock(const char *dir, int fd);

/* Server data templates (template.c, docs/servers.md "Templates"): the environment variable
 * naming a template root; a start of a fitting kind (postgres, mariadb) copies ROOT/KIND/data
 * instead of running initdb / mariadb-install-db. The root and the template are checked as
 * a server directory is (owner, mode, no symlink): a bad one fails the start (IDB_EINPUT). */
#define IDB_SERVER_TEMPLATES_ENV "IDBENCH_SERVER_TEMPLATES"

/* Make in root (made 0711/0700 when missing; must be idbench's, writable by it alone) the
 * template of kind: the data a start with settings would initialise, in root/KIND (the
 * server is not started); root/KIND.settings records the settings the init baked in. Returns 0,
 * IDB_EINPUT (no templates for kind, root untrusted, a bad setting) or IDB_EIO. */
int idb_server_template_make(const char *root, const char *kind, const char *const *settings,
                             int nsettings, idb_err *err);

/* Tests only: 1 makes later starts skip PR_SET_PDEATHSIG, so a test can SIGKILL its process
 * and leave a stale server for idb_servers_clean to find. */
void idb_servers_test_no_deathsig(int on);

/* Tests only: 1 makes later starts empty the kind's config file once written (postgres
 * DIR/data/idbench.conf, mariadb DIR/my.cnf, redis DIR/redis.conf), so a test sees that the
 * listen settings on the command line alone keep the server on its own socket and port. */
void idb_servers_test_truncate_conf(int on);

#endif

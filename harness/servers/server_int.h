/* server_int.h — what server.c, proc.c and the kinds (srv_postgres.c, srv_mariadb.c,
 * srv_redis.c, srv_etcd.c) share: the server record, the kind table's entry, the process helpers.
 */
#ifndef IDB_SERVER_INT_H
#define IDB_SERVER_INT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "server.h"

#define SRV_BINS_MAX 2                 /* binaries a kind runs (server, initialiser) */
#define SRV_SOCKDIR_LEN 64             /* "/tmp/idb-PID-START-XXXXXX" (sockdir.c), and room */
#define SRV_SOCKET_LEN 108             /* sizeof sun_path */
#define SRV_VERSION_LEN 64
#define SRV_ARGS_MAX 8                 /* argv strings a kind builds in idb_server.arg */
#define SRV_RECORD_SUFFIX ".idbench-pid"  /* the record of P/NAME is P/NAME.idbench-pid */
#define SRV_LOGFILE "server.log"
#define SRV_SECRETFILE "idbench-secret"  /* the per-run TCP password (secret.c), 0600 */
#define SRV_SECRET_BYTES 16            /* random bytes of a secret: 32 hex characters */
#define SRV_LOOPBACK "127.0.0.1"       /* the only address a server listens on */
#define SRV_SOCKDIR_PARENT "/tmp"     /* where socket directories go (sockdir.c) */
#define SRV_SOCKDIR_BASE "idb-"        /* their names' start */
#define SRV_SOCKDIR_PREFIX SRV_SOCKDIR_PARENT "/" SRV_SOCKDIR_BASE
#define SRV_USER_ENV "IDBENCH_SERVER_USER"  /* as root: the user to run every server as */
#define SRV_FALLBACK_USER "idbench"    /* as root: made when the package's user is missing */

/* A binary of a kind: its default path and the environment variable that overrides it. */
typedef struct srv_bin {
    const char *env;
    const char *path;
} srv_bin;

/* Who a child runs as: drop = 0 keeps idbench's own user; missing = 1: the user name does
 * not exist yet (a preflight's answer; a start creates it). */
typedef struct srv_cred {
    int drop;
    int missing;
    uid_t uid;
    gid_t gid;
    char name[64];
} srv_cred;

/* The user a server's files and processes belong to: cred's when it drops to one, else
 * idbench's own. */
static inline uid_t srv_cred_uid(const srv_cred *c) { return c->drop ? c->uid : geteuid(); }

typedef struct srv_kind srv_kind;

struct idb_server {
    const srv_kind *kind;
    srv_cred cred;
    char dir[PATH_MAX];
    char log[PATH_MAX];
    char record[PATH_MAX];              /* P/NAME.idbench-pid, for messages */
    char recname[NAME_MAX + 1];         /* its name in P */
    int pfd, dfd;                       /* P and P/NAME (= dir), opened safely (safedir.c) */
    int recfd;                          /* the record, flocked while the server lives */
    int keep_record;                    /* 1: a refused start leaves it for `clean` */
    char sockdir[SRV_SOCKDIR_LEN];
    char socket[SRV_SOCKET_LEN];
    char version[SRV_VERSION_LEN];
    char secret[2 * SRV_SECRET_BYTES + 1];  /* the TCP password; "" without TCP */
    char secretfile[PATH_MAX];          /* where it is kept (DIR/idbench-secret), or "" */
    char bin[SRV_BINS_MAX][PATH_MAX];   /* the kind's binaries, resolved */
    char arg[SRV_ARGS_MAX][PATH_MAX + 64];  /* room for the kind's argv strings */
    char **settings;                    /* copies of the conf's "name=value" */
    int nsettings;
    int tcp, port;
    char clone_of[PATH_MAX];            /* postgres: the conninfo to copy new data from, or "" */
    pid_t pid;                          /* 0: not running */
    unsigned long long starttime;       /* /proc/PID/stat field 22 */
    int ready;                          /* 1 once it accepted a connection */
    struct idb_server *next;            /* the list of started servers */
};

/* One server kind: names, binaries, and the hooks server.c calls in this order at a start:
 * init (when the data directory is new), conf (every start), argv, then ready until 1. */
struct srv_kind {
    const char *name;
    const char *user;                   /* the package's user, when idbench runs as root */
    const char *db_user;                /* the database user to connect as */
    const char *package;                /* the Debian package that has the binaries */
    srv_bin bins[SRV_BINS_MAX];         /* bins[0]: the server; path NULL: unused slot */
    int stop_signal;                    /* the orderly stop that does not wait for clients */
    int death_signal;                   /* sent when idbench dies or is stopped by a signal
                                           (0: SIGKILL); one the server cleans up after */
    uint64_t min_free_bytes;            /* free space the preflight asks for */
    const char *version_marker;         /* the version follows this in `BIN --version` */
    const char *product;                /* "PostgreSQL": the version string's first word */
    const char *conf_file;              /* its config file under DIR (tests cut it short) */
    const char *secret_kept;            /* a file under DIR whose presence means the data
                                           holds the password set when it was made
                                           (postgres: data/PG_VERSION): the secret file
                                           beside it is reused; NULL: a new one each start */
    int templated;                      /* 1: a start may copy a template's data (template.c) */
    int template_tcp;                   /*   also a TCP start (the password is set at every
                                           start, not baked into the data) */
    const char *const *baked;           /*   settings the init bakes into the data: a start
                                           copies only a template made with the same values */
    int (*socket_path)(idb_server *s);  /* fill s->socket from s->sockdir and s->port */
    int (*init)(idb_server *s, idb_err *err);
    int (*conf)(idb_server *s, idb_err *err);
    void (*argv)(idb_server *s, const char **argv, size_t max);  /* may use s->arg */
    int (*ready)(idb_server *s);        /* 1 once it accepts connections; -1: it serves
                                           without the authentication asked (fatal) */
    /* Remove the half-made data an interrupted init left in the server directory dfd
     * (path, for messages), owned by uid (`idbench clean`); NULL: the kind has none. */
    void (*clean_partial)(int dfd, const char *path, uid_t uid);
    /* The server was killed (or died) and its processes are reaped, or it was stopped
     * (perhaps found dead): release what its death left outside its directory (postgres:
     * its System V segment; nothing after a clean shutdown); NULL: nothing. */
    void (*gone)(idb_server *s);
};

extern const srv_kind srv_postgres;
extern const srv_kind srv_mariadb;
extern const srv_kind srv_redis;
extern const srv_kind srv_sentinel;
extern const srv_kind srv_etcd;

/* proc.c ---------------------------------------------------------------------------- */

/* Fork a child in its own process group that runs as cred (setgroups, setgid, setuid, then
 * PR_SET_PDEATHSIG(death_sig, 0: SIGKILL) unless disabled), with stdin /dev/null and
 * stdout/stderr appended to log, and execs argv[0]; its pid is registered for the signal
 * handler with death_sig. Returns 0 or IDB_EIO. */
int srv_spawn(const srv_cred *cred, const char *const *argv, const char *log, int death_sig,
              pid_t *pid, idb_err *err);

/* srv_spawn, then wait for the child's exit: 0 when it exited 0, else IDB_EIO naming what
 * and the log's last lines. */
int srv_run(const srv_cred *cred, const char *const *argv, const char *log, const char *what,
            idb_err *err);

/* Run argv (argv[0] a path) as idbench's user, stdin /dev/null, and put what it writes to
 * stdout (and stderr when with_stderr) into buf (at most len - 1 bytes, NUL-terminated).
 * Returns its exit status, or -1 when it could not run or died of a signal. */
int srv_capture(const char *const *argv, int with_stderr, char *buf, size_t len);

/* Run `bin --version` as idbench's user and put its first output line into buf. Returns 0
 * or -1. */
int srv_capture_version(const char *bin, char *buf, size_t len);

/* "Product X.Y.Z" of kind k's server binary bin into buf (server.c). */
void srv_version_of(const srv_kind *k, const char *bin, char *buf, size_t len);

/* The start time of pid (field 22 of /proc/PID/stat), 0 when it does not exist. */
unsigned long long srv_proc_starttime(pid_t pid);

/* 1 when pid is the server idbench started: its start time is start, /proc/PID/exe is bin
 * (resolved), its cwd or an argument of its command line is dir or under it, and it leads
 * its own process group. */
int srv_proc_is_server(pid_t pid, unsigned long long start, const char *bin, const char *dir);

/* CPU time (user + system) of pid, of the children it has reaped and of its live children
 * (postgres's backends; mariadbd's threads are in its own), in ns at the clock tick's
 * resolution (10 ms); -1 when pid does not exist. */
long long srv_proc_tree_cpu_ns(pid_t pid);
/* The parent pid of pid from /proc, 0 when unknown. */
pid_t srv_proc_ppid(pid_t pid);

/* SIGKILL pid, its process group and its children (postgres's each lead their own group),
 * reap pid when it is our child, and wait (a few seconds at most) until they are gone. */
void srv_kill_tree(pid_t pid, int own_child);

/* SIGKILL what is left of a dead server and wait (at most 5 s) until it is gone: processes
 * of group pgid, and processes of binary bin running as uid with their cwd in dir that
 * started at `since` or later (postgres's backends each lead their own session). They
 * outlive a killed leader by a moment, and a restart on the same data before they are gone
 * fails (PostgreSQL: "pre-existing shared memory block is still in use"). */
void srv_leftovers_gone(pid_t pgid, uid_t uid, const char *bin, const char *dir,
                        unsigned long long since);

/* Stop a server: sig to pid, srv_kill_tree after timeout_ms; a child of ours is reaped.
 * Returns 1 when it had to be killed, 0 otherwise. */
int srv_stop_pid(pid_t pid, int sig, int own_child, int timeout_ms);

/* The last lines of the log at path, joined with " | " on one line, into buf. */
void srv_log_tail(const char *path, char *buf, size_t len);

/* Tests: PR_SET_PDEATHSIG is skipped when this is set. */
extern int srv_no_deathsig;

/* Tests: the kind's config file is emptied after it is written when this is set. */
extern int srv_truncate_conf;

/* template.c: 1 while a template is made: idb_server_start initialises (never from a
 * template) and returns without starting the server (idb_server_stop then releases the
 * record and socket directory). */
extern int srv_init_only;

/* pidfile.c ------------------------------------------------------------------------- */

/* Open and lock s's record (s->pfd, s->recname: made when missing, refused unless it is a
 * regular file of idbench's user that nobody else can write), stop what a killed run it
 * names left (a proved server, its socket directory), and write it anew with pid 0.
 * Returns 0, IDB_EINPUT (refused) or IDB_EIO ("in use by pid N": another run holds it). */
int srv_record_open(idb_server *s, idb_err *err);

/* Rewrite s's open record (owner, kind, uid, pid, start, sockdir). Returns 0 or IDB_EIO. */
int srv_record_write(const idb_server *s, idb_err *err);

/* Remove s's record (unless s->keep_record) and release its lock. */
void srv_record_close(idb_server *s);

/* safedir.c ------------------------------------------------------------------------ */

/* Walk path from "/" by descriptors (openat O_NOFOLLOW; StrictModes rule, see the file).
 * make = 1: missing components are made (0755, the last 0700), *pfd and *dfd are the
 * descriptors of the parent and of path; make = 0: only check what exists (path itself
 * must be trusted, or owned by cred's user). Returns 0 or IDB_EINPUT/IDB_EIO (one line). */
int srv_dir_walk(const char *path, const srv_cred *cred, int make, int *pfd, int *dfd,
                 idb_err *err);

/* Give the directory dfd (path, for messages; opened by srv_dir_walk, so its parent is
 * trusted) to cred, 0700, through its descriptor. Returns 0 or IDB_EIO. */
int srv_dir_give(int dfd, const char *path, const srv_cred *cred, idb_err *err);

/* 1 when a directory with st is trusted: owned by root or idbench's user, not writable by
 * group or others unless sticky (the StrictModes rule, safedir.c). */
int srv_dir_trusted(const struct stat *st);

/* 1 when the entry name of the directory fd is a mount root or not on the device dev. */
int srv_mount_root(int fd, const char *name, dev_t dev);

/* Remove the directory name in pfd and everything under it, by descriptors, when it is a
 * directory (not a symlink) owned by uid on pfd's device and not a mount point; anything
 * else is left and named (shown) in one line on stderr. Returns 0 or -1. */
int srv_rmtree_at(int pfd, const char *name, uid_t uid, const char *shown);

#define SRV_PARTIAL "data.partial"      /* an init's target until it is complete */

/* `idbench clean` of a server directory dfd (path: its name in messages): remove
 * data.partial (an init's target until complete), and data when data_state(dfd) says it is
 * half-made (< 0). */
void srv_clean_partial(int dfd, const char *path, uid_t uid, int (*data_state)(int dfd));

/* 1 when the run lock of the directory dfd is held (by *owner). */
int srv_run_lock_busy(int dfd, long *owner);

/* sockdir.c ------------------------------------------------------------------------ */

/* Make s->sockdir: /tmp/idb-PID-START-XXXXXX, named after this process (its owner), owned
 * by the server user, registered for removal on a signal. Returns 0 or IDB_EIO. */
int srv_sockdir_make(idb_server *s, idb_err *err);

/* Remove the socket directory path (/tmp/idb-PID-START-XXXXXX) when its owner is gone or
 * is this process, and the sweep's rules hold (sockdir.c). Returns 1 when removed. */
int srv_sockdir_remove(const char *path);

/* users.c --------------------------------------------------------------------------- */

/* Who kind k's server runs as, into cred: as root, IDBENCH_SERVER_USER or the package's user,
 * else SRV_FALLBACK_USER; a user that does not exist is created (a system user, said once on
 * stderr) when create is 1, else cred->missing is set. As a normal user, that user. Returns
 * 0, IDB_EINPUT (a bad IDBENCH_SERVER_USER) or IDB_EIO (the user cannot be created). */
int srv_find_user(const srv_kind *k, int create, srv_cred *cred, idb_err *err);

/* 1 when uid is a user a server of this process may run as: idbench's own, a kind's
 * package user, IDBENCH_SERVER_USER's or SRV_FALLBACK_USER's (sockdir.c's sweep). */
int srv_user_uid_ok(uid_t uid);

/* preflight.c ----------------------------------------------------------------------- */

/* idb_server_preflight for a start, also returning the kind, the user to run as (created
 * when missing: srv_find_user) and the binaries' resolved paths (environment overrides
 * applied). */
int srv_preflight(const idb_server_conf *c, const srv_kind **kind, srv_cred *cred,
                  char bins[][PATH_MAX], idb_err *err);

/* secret.c ------------------------------------------------------------------------- */

/* With TCP (s->tcp), s->secret and s->secretfile: a new secret from getrandom (or the
 * conf's, already in s->secret: a replicated group's) in a new
 * DIR/idbench-secret (0600, idbench's user), or, when the kind keeps its password in data
 * that exists (secret_kept), the one kept beside it. Without TCP both are "". Returns 0,
 * IDB_EINPUT or IDB_EIO (kept data without a usable secret file: one line saying so). */
int srv_secret_prepare(idb_server *s, idb_err *err);

/* template.c ---------------------------------------------------------------------- */

/* For a kind's init on a new data directory: when IDB_SERVER_TEMPLATES_ENV names a template
 * root and s fits its template of s's kind, copy the template's data into DIR/data (through
 * DIR/data.partial, as the server user, no symlink followed) and set *used. *used = 0: no
 * template (initialise as usual). Returns 0, IDB_EINPUT (a template another user could have
 * written, or holding a symlink: refused) or IDB_EIO. */
int srv_template_copy(idb_server *s, int *used, idb_err *err);

/* Small helpers (server.c) ----------------------------------------------------------- */

/* Write text to path (created 0600) as the server user: never as root through what that
 * user could have planted. Returns 0 or IDB_EIO. */
int srv_write_file(const idb_server *s, const char *path, const char *text, idb_err *err);

/* Append text to path (created 0600), as the server user. Returns 0 or IDB_EIO. */
int srv_append_file(const idb_server *s, const char *path, const char *text, idb_err *err);

/* 1 when the entry name of the directory fd exists (not following a symlink). */
int srv_has(int fd, const char *name);

/* Write text (a copy of the secret for the server: a password file, an init file, an ACL
 * file) into a new file path, as the server user (like srv_write_file): what was at path is
 * removed, the new file made with O_EXCL|O_NOFOLLOW, 0600. Returns 0 or IDB_EIO. */
int srv_write_private(const idb_server *s, const char *path, const char *text, idb_err *err);

/* Split "name=value" (the setting i of s) into name and value; 0, or -1 when malformed. */
int srv_setting(const idb_server *s, int i, char *name, size_t nlen, const char **value);

/* The kind named name, or NULL. */
const srv_kind *srv_find_kind(const char *name);

/* The i-th kind of the table, NULL past its end. */
const srv_kind *srv_kind_at(size_t i);

/* The path of kind k's server binary (its environment override applied). */
const char *srv_kind_bin(const srv_kind *k);

/* A loopback TCP port free now, or 0. */
int srv_free_port(void);

/* 1 when a Unix-socket connect to path succeeds. */
int srv_socket_accepts(const char *path);

#endif

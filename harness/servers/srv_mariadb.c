/* srv_mariadb.c — the mariadb server kind: MariaDB 10.11 from Debian with InnoDB, data made
 * by mariadb-install-db in DIR/data (root without password on the socket, no test
 * database), the config in DIR/my.cnf passed with --defaults-file and its paths and listen
 * settings on the command line too (no TCP listener unless asked; with TCP, root@127.0.0.1
 * with the run's password), ready when its socket accepts a connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server_int.h"

#define MY_MIN_FREE_BYTES (256ull << 20)  /* free space asked by the preflight: data, logs */
#define MY_CONF_LEN 8192
#define MY_SOCKET "mysqld.sock"
#define MY_PARTIAL SRV_PARTIAL           /* mariadb-install-db's target until complete */
#define MY_COMPLETE "data/mysql/global_priv.frm"   /* made by the install's bootstrap */
#define MY_INIT "idbench-init.sql"     /* the TCP account's password (my_init_file) */

/* The socket file: SOCKDIR/mysqld.sock. */
static int my_socket_path(idb_server *s)
{
    int n = snprintf(s->socket, sizeof s->socket, "%s/" MY_SOCKET, s->sockdir);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* The paths and listen settings, the same in my.cnf and on the command line (my_argv), so
 * that a my.cnf missing or cut short cannot fall back to /var/lib/mysql, port 3306 on every
 * address or /run/mysqld: setting i of MY_LISTEN ("name=value" or "name") into buf, ""
 * when it does not apply. Name resolution is off: a TCP client is 127.0.0.1, never the
 * socket's root@localhost. */
#define MY_LISTEN 7
static void my_listen(const idb_server *s, int i, char *buf, size_t len)
{
    buf[0] = 0;
    switch (i) {
    case 0: snprintf(buf, len, "datadir=%s/data", s->dir); break;
    case 1: snprintf(buf, len, "socket=%s", s->socket); break;
    case 2: snprintf(buf, len, "pid-file=%s/mariadbd.pid", s->dir); break;
    case 3: snprintf(buf, len, "%s", s->port ? "bind-address=" SRV_LOOPBACK : "skip-networking");
            break;
    case 4: snprintf(buf, len, "port=%d", s->port); break;
    case 5: snprintf(buf, len, "skip-name-resolve"); break;
    default: if (s->secret[0]) snprintf(buf, len, "init-file=%s/" MY_INIT, s->dir); break;
    }
}

/* DIR/idbench-init.sql, run by mariadbd at every start before it accepts a connection: the
 * only TCP account, root@127.0.0.1, made again with the run's password (root@localhost
 * stays for the socket, whose directory is 0700; other hosts never match with name
 * resolution off). Only with TCP. */
static int my_init_file(idb_server *s, idb_err *err)
{
    char text[MY_CONF_LEN], path[PATH_MAX + 32];
    if (!s->secret[0]) return 0;
    snprintf(text, sizeof text, "DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1', "
             "'root'@'%%';\nCREATE USER 'root'@'127.0.0.1' IDENTIFIED BY '%s';\n"
             "GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n",
             s->secret);                         /* hex: nothing to quote */
    snprintf(path, sizeof path, "%s/" MY_INIT, s->dir);
    return srv_write_private(s, path, text, err);
}

/* DIR/my.cnf: the paths, where it listens (my_listen), InnoDB, then the settings as given;
 * and the init file (my_init_file). */
static int my_conf(idb_server *s, idb_err *err)
{
    char text[MY_CONF_LEN], path[PATH_MAX + 16], name[128], kv[PATH_MAX + 64];
    int n = snprintf(text, sizeof text, "# written by idbench at every start\n[mysqld]\n"
                     "default-storage-engine=InnoDB\n");
    for (int i = 0; i < MY_LISTEN; i++) {
        my_listen(s, i, kv, sizeof kv);
        if (kv[0] && n < (int)sizeof text)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s\n", kv);
    }
    for (int i = 0; i < s->nsettings && n < (int)sizeof text; i++) {
        const char *v;
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "mariadb: bad setting '%s'", s->settings[i]);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s=%s\n", name, v);
    }
    if (n >= (int)sizeof text) return idb_fail(err, IDB_EINPUT, "mariadb: too many settings");
    snprintf(path, sizeof path, "%s/my.cnf", s->dir);
    int rc = srv_write_file(s, path, text, err);
    return rc ? rc : my_init_file(s, err);
}

/* The state of the data in the server directory dfd: 0 none, 1 complete (what
 * mariadb-install-db makes last is there), -1 half-made (data.partial, or data without). */
static int my_data_state(int dfd)
{
    if (srv_has(dfd, MY_PARTIAL)) return -1;
    if (!srv_has(dfd, "data")) return 0;
    return srv_has(dfd, MY_COMPLETE) ? 1 : -1;
}

/* `idbench clean`: remove data.partial, and data when it is half-made. */
static void my_clean_partial(int dfd, const char *path, uid_t uid)
{
    srv_clean_partial(dfd, path, uid, my_data_state);
}

/* mariadb-install-db into DIR/data.partial (the config is written first), renamed DIR/data
 * once complete; half-made data is refused (`idbench clean DIR` removes it). */
static int my_init(idb_server *s, idb_err *err)
{
    char data[PATH_MAX + 16];
    int state = my_data_state(s->dfd);
    if (state > 0) return 0;
    if (state < 0) {
        s->keep_record = 1;
        return idb_fail(err, IDB_EINPUT, "mariadb: %s holds half-made data (an interrupted "
                        "start): run `idbench clean DIR` to remove it", s->dir);
    }
    int used = 0, rc = srv_template_copy(s, &used, err);    /* an install's copy */
    if (rc || used) return rc;
    if ((rc = my_conf(s, err))) return rc;
    snprintf(data, sizeof data, "%s/" MY_PARTIAL, s->dir);
    snprintf(s->arg[0], sizeof s->arg[0], "--defaults-file=%s/my.cnf", s->dir);
    snprintf(s->arg[1], sizeof s->arg[1], "--datadir=%s", data);
    const char *argv[] = { s->bin[1], s->arg[0], s->arg[1],
                           "--auth-root-authentication-method=normal", "--skip-test-db", NULL };
    rc = srv_run(&s->cred, argv, s->log, "mariadb-install-db", err);
    if (!rc && renameat(s->dfd, MY_PARTIAL, s->dfd, "data") != 0)
        rc = idb_fail(err, IDB_EIO, "mariadb: cannot rename %s: %s", data, strerror(errno));
    if (rc) srv_rmtree_at(s->dfd, MY_PARTIAL, srv_cred_uid(&s->cred), data);
    return rc;
}

/* mariadbd --defaults-file=DIR/my.cnf --SETTING... (my_listen's), in the foreground. */
static void my_argv(idb_server *s, const char **argv, size_t max)
{
    char kv[sizeof s->arg[0] - 2];
    size_t n = 0, a = 1;
    snprintf(s->arg[0], sizeof s->arg[0], "--defaults-file=%s/my.cnf", s->dir);
    argv[n++] = s->bin[0];
    argv[n++] = s->arg[0];
    for (int i = 0; i < MY_LISTEN && n < max; i++) {
        my_listen(s, i, kv, sizeof kv);
        if (!kv[0]) continue;
        if (a < SRV_ARGS_MAX) {
            snprintf(s->arg[a], sizeof s->arg[a], "--%s", kv);
            argv[n++] = s->arg[a++];
        }
    }
}

/* Ready when the socket accepts a connection (mariadbd makes it once it can serve). */
static int my_ready(idb_server *s) { return srv_socket_accepts(s->socket); }

/* Settings mariadb-install-db bakes into the data (InnoDB's page size and system
 * tablespace, name case) or that make a Galera node (wsrep): a template made without them, or
 * with other values, is not copied. */
static const char *const my_baked[] = { "innodb_page_size", "innodb_data_file_path",
                                        "innodb_undo_tablespaces", "lower_case_table_names",
                                        "wsrep_on", NULL };

const srv_kind srv_mariadb = {
    .name = "mariadb",
    .user = "mysql",
    .db_user = "root",
    .package = "mariadb-server",
    .bins = { { "IDBENCH_MARIADBD", "/usr/sbin/mariadbd" },
              { "IDBENCH_MARIADB_INSTALL_DB", "/usr/bin/mariadb-install-db" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = MY_MIN_FREE_BYTES,
    .version_marker = "Ver ",
    .product = "MariaDB",
    .conf_file = "my.cnf",
    .templated = 1,
    .template_tcp = 1,                 /* the TCP password: my_init_file at every start */
    .baked = my_baked,
    .socket_path = my_socket_path,
    .init = my_init,
    .conf = my_conf,
    .argv = my_argv,
    .ready = my_ready,
    .clean_partial = my_clean_partial,
};

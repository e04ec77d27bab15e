/* srv_mariadb.c — the mariadb server kind: MariaDB 10.11 from Debian with InnoDB, data made
 * by mariadb-install-db in DIR/data (root without password, no test database), the config
 * in DIR/my.cnf passed with --defaults-file (no TCP listener unless asked), ready when its
 * socket accepts a connection.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "server_int.h"

#define MY_CONF_LEN 8192
#define MY_SOCKET "mysqld.sock"

/* The socket file: SOCKDIR/mysqld.sock. */
static int my_socket_path(idb_server *s)
{
    int n = snprintf(s->socket, sizeof s->socket, "%s/" MY_SOCKET, s->sockdir);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* DIR/my.cnf: the paths, where it listens, InnoDB, then the settings as given. */
static int my_conf(idb_server *s, idb_err *err)
{
    char text[MY_CONF_LEN], path[PATH_MAX + 16], name[128];
    int n = snprintf(text, sizeof text, "# written by idbench at every start\n[mysqld]\n"
                     "datadir=%s/data\nsocket=%s\npid-file=%s/mariadbd.pid\n"
                     "default-storage-engine=InnoDB\n", s->dir, s->socket, s->dir);
    if (s->port)
        n += snprintf(text + n, sizeof text - (size_t)n, "port=%d\nbind-address=127.0.0.1\n",
                      s->port);
    else n += snprintf(text + n, sizeof text - (size_t)n, "skip-networking\n");
    for (int i = 0; i < s->nsettings && n < (int)sizeof text; i++) {
        const char *v;
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "mariadb: bad setting '%s'", s->settings[i]);
        n += snprintf(text + n, sizeof text - (size_t)n, "%s=%s\n", name, v);
    }
    if (n >= (int)sizeof text) return idb_fail(err, IDB_EINPUT, "mariadb: too many settings");
    snprintf(path, sizeof path, "%s/my.cnf", s->dir);
    return srv_write_file(s, path, text, err);
}

/* mariadb-install-db when DIR/data/mysql does not exist (the config is written first). */
static int my_init(idb_server *s, idb_err *err)
{
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/data/mysql", s->dir);
    if (access(probe, F_OK) == 0) return 0;
    int rc = my_conf(s, err);
    if (rc) return rc;
    snprintf(s->arg[0], sizeof s->arg[0], "--defaults-file=%s/my.cnf", s->dir);
    const char *argv[] = { s->bin[1], s->arg[0], "--auth-root-authentication-method=normal",
                           "--skip-test-db", NULL };
    return srv_run(&s->cred, argv, s->log, "mariadb-install-db", err);
}

/* mariadbd --defaults-file=DIR/my.cnf, in the foreground. */
static void my_argv(idb_server *s, const char **argv, size_t max)
{
    snprintf(s->arg[0], sizeof s->arg[0], "--defaults-file=%s/my.cnf", s->dir);
    const char *a[] = { s->bin[0], s->arg[0] };
    for (size_t i = 0; i < sizeof a / sizeof *a && i < max; i++) argv[i] = a[i];
}

/* Ready when the socket accepts a connection (mariadbd makes it once it can serve). */
static int my_ready(idb_server *s) { return srv_socket_accepts(s->socket); }

const srv_kind srv_mariadb = {
    .name = "mariadb",
    .user = "mysql",
    .db_user = "root",
    .package = "mariadb-server",
    .bins = { { "IDBENCH_MARIADBD", "/usr/sbin/mariadbd" },
              { "IDBENCH_MARIADB_INSTALL_DB", "/usr/bin/mariadb-install-db" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = 256ull << 20,
    .version_marker = "Ver ",
    .product = "MariaDB",
    .socket_path = my_socket_path,
    .init = my_init,
    .conf = my_conf,
    .argv = my_argv,
    .ready = my_ready,
};

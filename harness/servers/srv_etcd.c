/* srv_etcd.c — the etcd server kind: etcd 3.4 from Debian (etcd-server), one private
 * single-node cluster. Its client URL is a Unix socket: etcd refuses unix:///abs/path but
 * takes unix://localhost:NAME and makes a socket file named "localhost:NAME" in its working
 * directory, so the server runs as `env -C SOCKDIR etcd ...` (env execs etcd: the pid is
 * the server's own) and its socket is SOCKDIR/localhost:2379. Its peer URL must be TCP:
 * 127.0.0.1 on a free port, which is only started inside the run's private network
 * namespace (netns.h), where no other user reaches it; outside one the start is refused.
 * No config file: everything is on the command line (data in DIR/data, logs to server.log);
 * settings "name=value" become --name=value (at most SRV_ARGS_MAX - ETCD_ARGS of them).
 * Ready when GET /health on the socket answers {"health":"true"}.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "etcd_http.h"
#include "netns.h"
#include "server_int.h"

#define ETCD_MIN_FREE_BYTES (128ull << 20)   /* its write-ahead log preallocates 64 MiB */
#define ETCD_SOCKET "localhost:2379"          /* the client socket's file name */
#define ETCD_ENV "/usr/bin/env"               /* runs it in SOCKDIR (env -C) */
#define ETCD_ARGS 4                           /* s->arg slots the kind uses itself */
#define HEALTH_TIMEOUT_MS 500

/* The socket file: SOCKDIR/localhost:2379. */
static int et_socket_path(idb_server *s)
{
    int n = snprintf(s->socket, sizeof s->socket, "%s/" ETCD_SOCKET, s->sockdir);
    return n < 0 || n >= (int)sizeof s->socket ? -1 : 0;
}

/* Every start: only inside the private network namespace (its peer listener is TCP); the
 * peer port chosen once (a restart keeps it); the settings' form checked. */
static int et_conf(idb_server *s, idb_err *err)
{
    char name[128];
    const char *v;
    if (!idb_netns_entered())
        return idb_fail(err, IDB_EUNAVAIL, "etcd: its peer listener is TCP and runs only in "
                        "the run's private network namespace, which needs root");
    if (!s->port && !(s->port = srv_free_port()))
        return idb_fail(err, IDB_EIO, "etcd: no free loopback TCP port for its peer URL");
    if (s->nsettings > SRV_ARGS_MAX - ETCD_ARGS)
        return idb_fail(err, IDB_EINPUT, "etcd: at most %d settings",
                        SRV_ARGS_MAX - ETCD_ARGS);
    for (int i = 0; i < s->nsettings; i++)
        if (srv_setting(s, i, name, sizeof name, &v) != 0)
            return idb_fail(err, IDB_EINPUT, "etcd: bad setting '%s'", s->settings[i]);
    return 0;
}

/* env -C SOCKDIR etcd --name idb --data-dir DIR/data, the client URL on the socket, the
 * peer URL on 127.0.0.1:PORT, a one-member initial cluster, then --NAME=VALUE settings. */
static void et_argv(idb_server *s, const char **argv, size_t max)
{
    size_t n = 0;
    snprintf(s->arg[0], sizeof s->arg[0], "%s/data", s->dir);
    snprintf(s->arg[1], sizeof s->arg[1], "unix://" ETCD_SOCKET);
    snprintf(s->arg[2], sizeof s->arg[2], "http://" SRV_LOOPBACK ":%d", s->port);
    snprintf(s->arg[3], sizeof s->arg[3], "idb=http://" SRV_LOOPBACK ":%d", s->port);
    const char *fixed[] = { ETCD_ENV, "-C", s->sockdir, s->bin[0], "--name", "idb",
                            "--data-dir", s->arg[0], "--listen-client-urls", s->arg[1],
                            "--advertise-client-urls", s->arg[1], "--listen-peer-urls",
                            s->arg[2], "--initial-advertise-peer-urls", s->arg[2],
                            "--initial-cluster", s->arg[3] };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed && n < max; i++) argv[n++] = fixed[i];
    for (int i = 0; i < s->nsettings && n < max; i++) {
        char name[128];
        const char *v;
        char *a = s->arg[ETCD_ARGS + i];
        if (srv_setting(s, i, name, sizeof name, &v) != 0) continue;
        snprintf(a, sizeof s->arg[0], "--%s=%s", name, v);
        argv[n++] = a;
    }
}

/* Ready when GET /health answers {"health":"true"}. */
static int et_ready(idb_server *s)
{
    char body[256], v[16];
    idb_err e = { 0 };
    int st = idb_etcd_call(s->socket, "GET", "/health", NULL, body, sizeof body,
                           HEALTH_TIMEOUT_MS, &e);
    return st == 200 && idb_etcd_field(body, "health", v, sizeof v) && !strcmp(v, "true");
}

const srv_kind srv_etcd = {
    .name = "etcd",
    .user = "etcd",
    .db_user = "",
    .package = "etcd-server",
    .bins = { { "IDBENCH_ETCD", "/usr/bin/etcd" } },
    .stop_signal = SIGTERM,
    .min_free_bytes = ETCD_MIN_FREE_BYTES,
    .version_marker = "Version: ",
    .product = "etcd",
    .conf_file = NULL,
    .socket_path = et_socket_path,
    .init = NULL,
    .conf = et_conf,
    .argv = et_argv,
    .ready = et_ready,
};

/* galera_servers.c — the `galera` store's nodes: N private MariaDB servers (harness/servers,
 * kind "mariadb", each in <dir>/node-J) in one Galera cluster (galera-4's wsrep provider).
 *
 * Group communication and state transfer are TCP: every node listens on 127.0.0.1 with
 * ports of its own (node j: group gmcast.listen_addr base + 10 j, incremental transfer
 * ist.recv_addr + 1, full transfer wsrep_sst_receive_address + 2; the defaults collide
 * between nodes). wsrep has no authentication for group traffic, so before the first node
 * starts idbench (as root) moves into the run's private network namespace (netns.h: only its
 * own loopback up): nothing outside the run can reach those ports. idbench itself talks to
 * every node over its private Unix socket. Not root: refused with one line.
 * Node 1 starts a new cluster (wsrep_cluster_address=gcomm://, what --wsrep-new-cluster
 * does); the others join it by the address list and receive a full state transfer by rsync.
 * Settings: binlog_format=ROW, innodb_autoinc_lock_mode=2 (interleaved: Galera's
 * requirement), wsrep_auto_increment_control=ON (the default: each node's
 * auto_increment_increment is the cluster size and its offset its index, reset whenever
 * the membership changes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <errmsg.h>

#include "galera.h"
#include "netns.h"
#include "server.h"

#define GL_SETTING_MAX 512
#define GL_SETTINGS 17
#define GL_WAIT_S 60
#define GL_POLL_NS 100000000L

/* The provider's path: GL_PROVIDER_ENV, else Debian's. */
static const char *provider(void)
{
    const char *p = getenv(GL_PROVIDER_ENV);
    return p && p[0] ? p : GL_PROVIDER_DEFAULT;
}

/* Node j's settings as "name=value" into text[] (members: the cluster's address list). */
static int settings(const gl_store *s, int j, int members, char text[][GL_SETTING_MAX])
{
    char list[GL_SETTING_MAX] = "";
    size_t used = 0;
    for (int i = 0; j > 0 && i < members; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s127.0.0.1:%d", i ? "," : "",
                                 GL_PORT_BASE + 10 * i);
    int port = GL_PORT_BASE + 10 * j, n = 0;
    snprintf(text[n++], GL_SETTING_MAX, "innodb_buffer_pool_size=%lld",
             (long long)s->pool);
    snprintf(text[n++], GL_SETTING_MAX, "innodb_flush_log_at_trx_commit=%lld",
             (long long)s->flush);
    snprintf(text[n++], GL_SETTING_MAX, "binlog_format=ROW");
    snprintf(text[n++], GL_SETTING_MAX, "innodb_autoinc_lock_mode=2");
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_on=ON");
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_provider=%s", provider());
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_cluster_name=idbench");
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_node_name=node%d", j + 1);
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_cluster_address=gcomm://%s", list);
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_node_address=127.0.0.1:%d", port);
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_provider_options=gmcast.listen_addr=tcp://"
             "127.0.0.1:%d;ist.recv_addr=127.0.0.1:%d", port, port + 1);   /* ';' mid-line:
                                                                           * not a comment */
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_sst_receive_address=127.0.0.1:%d", port + 2);
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_sst_method=rsync");
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_auto_increment_control=ON");
    snprintf(text[n++], GL_SETTING_MAX, "wsrep_slave_threads=1");
    snprintf(text[n++], GL_SETTING_MAX, "innodb_page_size=%lld",
             (long long)s->page_size);
    snprintf(text[n++], GL_SETTING_MAX, "log_bin_trust_function_creators=1");
    return n;
}

int gl_node_start(gl_store *s, int j, int members, md_store **out, idb_err *err)
{
    if (!idb_netns_entered()) {
        idb_err why = { 0 };
        if (idb_netns_private(&why) != 0)
            return idb_fail(err, IDB_EINPUT, "galera: its group communication and state "
                            "transfer are TCP without authentication: idbench runs the nodes "
                            "only in a private network namespace, as root (%s)", why.msg);
    }
    char text[GL_SETTINGS][GL_SETTING_MAX], path[PATH_MAX];
    const char *set[GL_SETTINGS];
    int n = settings(s, j, members, text);
    for (int i = 0; i < n; i++) set[i] = text[i];
    if (snprintf(path, sizeof path, "%s/node-%d", s->dir, j + 1) >= (int)sizeof path)
        return idb_fail(err, IDB_EINPUT, "galera: directory name too long");
    md_store *m = md_alloc(s->key_bytes, s->row_bytes, GL_DB, err);
    if (!m) return IDB_ENOMEM;
    *out = m;
    m->autoinc = s->autoinc;
    m->lock_wait_s = 50;
    m->connect_wait_s = GL_WAIT_S;     /* a joiner greets clients after its state transfer */
    return md_node_start(m, path, set, n, err);
}

/* Node j's wsrep_cluster_size and whether it is synced (wsrep_local_state 4). */
static int node_state(md_store *m, int64_t *size, int64_t *synced, idb_err *err)
{
    int rc = md_query_i64(m, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                          "WHERE VARIABLE_NAME = 'WSREP_CLUSTER_SIZE'", size, err);
    int64_t state = -1;
    if (!rc) rc = md_query_i64(m, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                               "WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE'", &state, err);
    *synced = state == 4;
    return rc;
}

/* The time now in ns (CLOCK_MONOTONIC): the join's duration (reported apart) and the
 * cluster wait's deadline. */
static int64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Node j's connection again after the node closed it while the cluster formed or grew (as
 * MariaDB's own galera_wait_ready does: a node may drop its clients around a state
 * transfer; CI saw "Lost connection to server during query" here once), its INSERT
 * prepared again if it was. 0 when reconnected; rc (the poll's error stands) when the
 * connection was not lost or the node's server is gone. */
static int node_reconnect(gl_store *s, int j, int rc, idb_err *err)
{
    md_store *m = s->node[j];
    unsigned e = mysql_errno(m->db);
    if ((e != CR_SERVER_LOST && e != CR_SERVER_GONE_ERROR) || !idb_server_alive(m->server))
        return rc;
    int prepared = m->ins != NULL;
    md_stmts_close(m);
    mysql_close(m->db);
    m->db = NULL;
    rc = md_connect(m, m->user, err);
    return rc || !prepared ? rc : gl_node_ready(s, j, err);
}

int gl_wait_cluster(gl_store *s, int want, idb_err *err)
{
    int64_t t0 = mono_ns();                       /* reconnects count against it too */
    while (mono_ns() - t0 < GL_WAIT_S * 1000000000LL) {
        int ok = 1;
        for (int j = 0; j < want && ok; j++) {
            int64_t size = 0, synced = 0;
            int rc = node_state(s->node[j], &size, &synced, err);
            if (rc) rc = node_reconnect(s, j, rc, err);   /* then synced is 0: poll again */
            if (rc) return rc;
            ok = size == want && synced;
        }
        if (ok) return 0;
        nanosleep(&(struct timespec){ 0, GL_POLL_NS }, NULL);
    }
    return idb_fail(err, IDB_EIO, "galera: the %d nodes did not form one synced cluster "
                    "within %d s: see %s/node-*/server.log", want, GL_WAIT_S, s->dir);
}

int gl_node_ready(gl_store *s, int j, idb_err *err)
{
    md_store *m = s->node[j];
    if (mysql_select_db(m->db, GL_DB) != 0) return md_fail(m->db, IDB_EIO, "USE", err);
    return md_prepare(m, err);
}

int gl_join(gl_store *s, idb_err *err)
{
    int j = s->nnodes;
    int64_t t0 = mono_ns();
    int rc = gl_node_start(s, j, j + 1, &s->node[j], err);
    if (!rc) rc = gl_wait_cluster(s, j + 1, err);
    if (!rc) rc = gl_node_ready(s, j, err);
    if (rc) return rc;
    s->cpu0[j] = idb_server_cpu_ns(s->node[j]->server);
    s->nnodes = j + 1;
    s->joined = 1;
    s->join_ms = (double)(mono_ns() - t0) / 1e6;
    return 0;
}

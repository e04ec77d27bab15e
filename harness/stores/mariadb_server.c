/* mariadb_server.c — the `mariadb` store's server: without socket= or socket_file= each
 * shard's store starts a private MariaDB server (harness/servers, kind "mariadb") in
 * <shard dir>/mariadb with the store's settings in its config, and stops it at close(). The
 * options buffer_pool_bytes, flush_log_at_trx_commit and page_size are those settings; on a
 * user's server (socket=) they are the server's own, and a value the user gave that the
 * server does not have is refused rather than silently echoed into the result.
 */
#include <stdio.h>
#include <string.h>

#include "mariadb.h"
#include "server.h"

#define MD_SETTING_MAX 96          /* "innodb_buffer_pool_size=<int64>" and the like */

/* The server settings the store's options set: option name, the server's variable. */
static const struct { const char *option, *setting; } md_settings[] = {
    { "buffer_pool_bytes", "innodb_buffer_pool_size" },
    { "flush_log_at_trx_commit", "innodb_flush_log_at_trx_commit" },
    { "page_size", "innodb_page_size" },
};
#define MD_NSETTINGS (sizeof md_settings / sizeof *md_settings)

int md_settings_check(md_store *s, const idb_opts *o, idb_err *err)
{
    for (size_t i = 0; i < MD_NSETTINGS; i++) {
        char sql[MD_SQL_MAX];
        int64_t have = -1, want = idb_opts_int(o, md_settings[i].option);
        const idb_opt_decl *d = o->decls;
        while (d->name && strcmp(d->name, md_settings[i].option) != 0) d++;
        snprintf(sql, sizeof sql, "SELECT @@%s", md_settings[i].setting);
        int rc = md_query_i64(s, sql, &have, err);
        if (rc) return rc;
        if (strcmp(idb_opts_str(o, d->name), d->def) == 0 || have == want) continue;
        return idb_fail(err, IDB_EINPUT, "mariadb: %s=%lld is a setting of a private server; "
                        "the server at %s has %s=%lld (set it there, or leave the option out)",
                        d->name, (long long)want, s->socket, md_settings[i].setting,
                        (long long)have);
    }
    return 0;
}

int md_server_start(md_store *s, const char *dir, const idb_opts *o, const char *const *extra,
                    int nextra, idb_err *err)
{
    char text[MD_NSETTINGS][MD_SETTING_MAX], path[PATH_MAX];
    const char *settings[MD_NSETTINGS + MD_WAITS_SETTINGS + MD_EXTRA_MAX];
    int n = 0;
    for (size_t i = 0; i < MD_NSETTINGS; i++) {
        snprintf(text[i], sizeof text[i], "%s=%lld", md_settings[i].setting,
                 (long long)idb_opts_int(o, md_settings[i].option));
        settings[n++] = text[i];
    }
    if (strcmp(idb_opts_str(o, "perf_schema"), "on") == 0)     /* mariadb_waits.c */
        for (int i = 0; i < MD_WAITS_SETTINGS; i++) settings[n++] = md_waits_settings[i];
    for (int i = 0; i < nextra && i < MD_EXTRA_MAX; i++) settings[n++] = extra[i];
    if ((size_t)snprintf(path, sizeof path, "%s/mariadb", dir) >= sizeof path)
        return idb_fail(err, IDB_EINPUT, "mariadb: directory name too long");
    return md_server_start_at(s, path, settings, n, err);
}

int md_server_start_at(md_store *s, const char *path, const char *const *settings, int n,
                       idb_err *err)
{
    idb_server_conf c = { .kind = "mariadb", .dir = path, .settings = settings,
                          .nsettings = n, .tcp = 0 };
    int rc = idb_server_start(&c, &s->server, err);
    if (rc) return rc;
    snprintf(s->socket, sizeof s->socket, "%s", idb_server_socket(s->server));
    snprintf(s->user, sizeof s->user, "%s", idb_server_user(s->server));
    return 0;
}

int md_node_start(md_store *s, const char *path, const char *const *settings, int n,
                  idb_err *err)
{
    int rc = md_server_start_at(s, path, settings, n, err);
    if (!rc) rc = md_connect(s, s->user, err);
    return rc ? rc : md_query_i64(s, "SELECT @@innodb_page_size", &s->page_size, err);
}

void md_server_stop(md_store *s)
{
    idb_server_stop(s->server);
    s->server = NULL;
}

/* The store's `available` hook (store.h): a user's server (socket= / socket_file=) is
 * always tried; else the private server's binaries must be here. */
int md_available(const char *const *kv, int nkv, char *version, size_t cap, idb_err *why)
{
    version[0] = 0;
    if (idb_store_kv_value(kv, nkv, "socket")[0] || idb_store_kv_value(kv, nkv, "socket_file")[0])
        return 0;
    int rc = idb_server_installed("mariadb", version, cap, why);
    if (rc == IDB_EIO)
        snprintf(why->msg + strlen(why->msg), sizeof why->msg - strlen(why->msg),
                 "; or give -s socket=");
    return rc;
}

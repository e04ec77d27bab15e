/* spider_servers.c — the `spider` store's servers: B private MariaDB backends and one head
 * (harness/servers, kind "mariadb", each in its own directory under the shard's:
 * backend-0 .. backend-(B-1), head), their accounts and tables.
 *
 * Each backend holds `orders` as the mariadb store makes it (InnoDB, the ID the clustered
 * primary key: md_table_sql) in database idbench, and an account idbench_spider@localhost
 * with this run's password (idb_server_secret_new: 32 hex characters from getrandom). The
 * head loads the Spider engine (plugin-load-add=ha_spider.so in its config: the head
 * only) and reaches each backend over the backend's private Unix socket: CREATE SERVER bJ
 * FOREIGN DATA WRAPPER mysql OPTIONS (SOCKET ..., USER idbench_spider, PASSWORD ...). No
 * server listens on TCP. The head's table has the same columns, ENGINE=SPIDER, partitioned
 * over the servers: RANGE COLUMNS(id) at the split points, HASH(id) (8-byte keys:
 * id mod B) or KEY(id) (MariaDB's own hash of the key), partition pJ on server bJ.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "spider.h"

#define SP_SETTING_MAX 96
#define SP_HEAD_SQL_MAX 8192              /* the head's CREATE TABLE with 16 partitions */
#define SP_PLUGIN_SETTING "plugin-load-add=ha_spider.so"
#define SP_SERVER_OPTION_MAX 64           /* CREATE SERVER cuts its strings to this */

/* The server settings the store's options set: option name, the server's variable. */
static const struct { const char *option, *setting; } sp_settings[] = {
    { "buffer_pool_bytes", "innodb_buffer_pool_size" },
    { "flush_log_at_trx_commit", "innodb_flush_log_at_trx_commit" },
    { "page_size", "innodb_page_size" },
};
#define SP_NSETTINGS (sizeof sp_settings / sizeof *sp_settings)

int sp_server_start(const char *dir, int j, const idb_opts *o, sp_store *s, md_store **out,
                    idb_err *err)
{
    char text[SP_NSETTINGS + 1][SP_SETTING_MAX], path[PATH_MAX];
    const char *settings[SP_NSETTINGS + 1];
    size_t n = 0;
    for (; n < SP_NSETTINGS; n++) {
        snprintf(text[n], sizeof text[n], "%s=%lld", sp_settings[n].setting,
                 (long long)idb_opts_int(o, sp_settings[n].option));
        settings[n] = text[n];
    }
    if (j < 0) settings[n++] = SP_PLUGIN_SETTING;          /* the head only */
    int len = j < 0 ? snprintf(path, sizeof path, "%s/head", dir)
                    : snprintf(path, sizeof path, "%s/backend-%d", dir, j);
    if (len < 0 || len >= (int)sizeof path)
        return idb_fail(err, IDB_EINPUT, "spider: directory name too long");
    md_store *m = md_alloc(s->key_bytes, s->row_bytes, SP_DB, err);
    if (!m) return IDB_ENOMEM;
    *out = m;
    return md_node_start(m, path, settings, (int)n, err);
}

int sp_backend_schema(sp_store *s, md_store *b, idb_err *err)
{
    char sql[MD_SQL_MAX];
    int rc = md_exec(b, "CREATE DATABASE " SP_DB, IDB_EIO, "creating a backend's database",
                     err);
    if (!rc && mysql_select_db(b->db, SP_DB) != 0) rc = md_fail(b->db, IDB_EIO, "USE", err);
    if (rc) return rc;
    b->created_db = 1;
    md_table_sql(b, sql);
    rc = md_exec(b, sql, IDB_EIO, "creating a backend's table", err);
    snprintf(sql, sizeof sql, "CREATE USER '" SP_USER "'@'localhost' IDENTIFIED BY '%s'",
             s->secret);                       /* hex: nothing to quote */
    if (!rc) rc = md_exec(b, sql, IDB_EIO, "creating the head's account on a backend", err);
    if (!rc)
        rc = md_exec(b, "GRANT ALL PRIVILEGES ON *.* TO '" SP_USER "'@'localhost'", IDB_EIO,
                     "granting the head's account", err);
    return rc ? rc : md_monitors_on(b, err);      /* index_page_splits: the splits column */
}

int sp_head_schema(sp_store *s, idb_err *err)
{
    md_store *h = s->head;
    int64_t loaded = 0;
    int rc = md_query_i64(h, "SELECT COUNT(*) FROM information_schema.ENGINES WHERE "
                          "ENGINE = 'SPIDER' AND SUPPORT IN ('YES', 'DEFAULT')", &loaded, err);
    if (!rc && loaded != 1)
        rc = idb_fail(err, IDB_EIO, "spider: the head server did not load the Spider engine "
                      "(" SP_PLUGIN_SETTING "): see its server.log");
    if (!rc) rc = md_exec(h, "CREATE DATABASE " SP_DB, IDB_EIO, "creating the head's database",
                          err);
    if (!rc && mysql_select_db(h->db, SP_DB) != 0) rc = md_fail(h->db, IDB_EIO, "USE", err);
    for (int j = 0; j < s->nback && !rc; j++) {
        char sql[MD_SQL_MAX + PATH_MAX];
        if (strlen(s->back[j]->socket) > SP_SERVER_OPTION_MAX)   /* it would be cut short */
            return idb_fail(err, IDB_EIO, "spider: backend socket %s is longer than CREATE "
                            "SERVER keeps (%d characters)", s->back[j]->socket,
                            SP_SERVER_OPTION_MAX);
        snprintf(sql, sizeof sql, "CREATE SERVER b%d FOREIGN DATA WRAPPER mysql OPTIONS "
                 "(HOST 'localhost', SOCKET '%s', DATABASE '" SP_DB "', USER '" SP_USER "', "
                 "PASSWORD '%s')", j, s->back[j]->socket, s->secret);
        rc = md_exec(h, sql, IDB_EIO, "CREATE SERVER on the head", err);
    }
    return rc;
}

/* Append printf-style text to buf (cap bytes) at *n; *n past cap marks it too long. */
static void add(char *buf, size_t cap, int *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t cap, int *n, const char *fmt, ...)
{
    if (*n < 0 || (size_t)*n >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *n, cap - (size_t)*n, fmt, ap);
    va_end(ap);
    *n = k < 0 ? -1 : *n + k;
}

/* Split point p as a RANGE COLUMNS value of the id column into buf: a decimal number for
 * BIGINT UNSIGNED (8-byte keys), X'hex' for BINARY. */
static void range_value(const sp_store *s, const idb_id *p, char *buf, size_t cap)
{
    char hex[IDB_ID_HEX_MAX];
    if (s->key_bytes == 8) snprintf(buf, cap, "%llu", (unsigned long long)idb_id_u64(p));
    else snprintf(buf, cap, "X'%s'", idb_hex(p->b, (size_t)p->len, hex));
}

/* The partition clause of the head's table into sql at *n (sql_len bytes). */
static void partitions(const sp_store *s, char *sql, size_t cap, int *n)
{
    static const char *const by[] = { [SP_RANGE] = "RANGE COLUMNS(id)",
                                      [SP_HASH] = "HASH(id)", [SP_KEY] = "KEY(id)" };
    add(sql, cap, n, " PARTITION BY %s (", by[s->partition]);
    for (int j = 0; j < s->nback; j++) {
        char v[2 * IDB_ID_HEX_MAX];
        add(sql, cap, n, "%sPARTITION p%d", j ? ", " : "", j);
        if (s->partition == SP_RANGE) {
            if (j + 1 < s->nback) range_value(s, &s->points[j], v, sizeof v);
            add(sql, cap, n, " VALUES LESS THAN (%s)", j + 1 < s->nback ? v : "MAXVALUE");
        }
        add(sql, cap, n, " COMMENT = 'srv \"b%d\"'", j);
    }
    add(sql, cap, n, ")");
}

int sp_head_table(sp_store *s, idb_err *err)
{
    char cols[MD_SQL_MAX], *sql = malloc(SP_HEAD_SQL_MAX);
    if (!sql) return idb_fail(err, IDB_ENOMEM, "out of memory");
    md_table_sql(s->head, cols);
    char *engine = strstr(cols, " ENGINE=");
    if (engine) *engine = 0;                  /* the columns and keys; the engine is ours */
    int n = 0;
    add(sql, SP_HEAD_SQL_MAX, &n, "%s ENGINE=SPIDER COMMENT = 'wrapper \"mysql\", %stable "
        "\"orders\"'", cols, s->nback == 1 ? "srv \"b0\", " : "");
    if (s->nback > 1) partitions(s, sql, SP_HEAD_SQL_MAX, &n);
    int rc = n < 0 || n >= SP_HEAD_SQL_MAX
           ? idb_fail(err, IDB_EINPUT, "spider: the head's CREATE TABLE is too long")
           : md_exec(s->head, sql, IDB_EIO, "creating the head's Spider table", err);
    free(sql);
    if (!rc) rc = md_prepare(s->head, err);
    if (!rc) s->table_made = 1;
    return rc;
}

/* store_mariadb.c — `mariadb`: orders in a real MariaDB 10.11 server, InnoDB.
 *
 * Each shard's store talks to one server over its Unix socket, in a database of its own
 * (idbench_<pid>_<n>_s<shard>, n counting the process's opens), with one table:
 *
 *   orders (id          BIGINT UNSIGNED (8-byte keys) | BINARY(16) | BINARY(n)  NOT NULL,
 *           shop        INT UNSIGNED, display_no INT UNSIGNED,
 *           created_ms  BIGINT, total_cents BIGINT,
 *           payload     VARBINARY(row_bytes)   (idb_payload_fill of the key))
 *
 * keyed by id: PRIMARY KEY (id), InnoDB's clustered index, so the whole row lives in the
 * ID's B-tree; with secondary=1 a BIGINT AUTO_INCREMENT primary key `seq` and UNIQUE KEY
 * id_key (id) instead (the "UUID as a secondary key" case). STATS_PERSISTENT=1 and
 * STATS_AUTO_RECALC=0: the page counts come from ANALYZE TABLE at stats(), and no background
 * recalculation reads pages during the run. secondary_created=1 and secondary_shop=1 add
 * the indexes orders_created (created_ms) and orders_shop (shop, created_ms) after the table
 * (store.h idb_store_secondaries), for `idbench read`'s range and shop queries.
 *
 * Inserts go through one prepared statement (mysql_stmt_*), one execute per row, with
 * autocommit off: the first insert after a commit begins the transaction, commit() ends it.
 * With autoinc=1 (the runner's, for strategy autoinc; not with secondary=1) id is
 * AUTO_INCREMENT: the INSERT names no id and each row's key is the statement's insert id
 * (a single-row INSERT: its own key, whatever innodb_autoinc_lock_mode), the payload derived
 * from the order's shop and display number.
 *
 * Which server: `socket=PATH[,PATH...]` (a comma-separated list) or `socket_file=FILE` (one
 * socket path a line; blank lines and lines starting with # skipped) name servers the user
 * runs; shard k (the runner's `shard` option) uses the k-th, or the only one when one is
 * given (then every shard has its own database on that one server). More sockets than shards
 * is fine; fewer (but more than one) is bad input. The database is dropped at close() unless
 * keep=1; nothing else of the user's server is changed except that the index metrics
 * (INNODB_METRICS index_page_splits) are enabled for the run when
 * they were off, and turned off again at close(). buffer_pool_bytes, flush_log_at_trx_commit
 * and page_size are settings of a private server; with socket= the server's own apply, and a
 * value given for one that the server does not have is bad input (mariadb_server.c).
 * Without socket= or socket_file= each shard starts its own server (mariadb_server.c).
 *
 * Every session runs at isolation= (default repeatable_read, InnoDB's own) with
 * innodb_lock_wait_timeout = lock_wait_timeout=; a deadlock (1213) or a lock wait timeout
 * (1205) is IDB_EBUSY: the runner rolls back and retries the transaction (counted).
 *
 * stats(): mariadb_stats.c; the writers' lock and latch waits: mariadb_waits.c; reads
 * (`idbench read`, the private server restarted on the run's data): mariadb_read.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <errmsg.h>
#include <mysqld_error.h>

#include "mariadb.h"
#include "payload.h"
#include "server.h"

#define MD_SOCKETS_MAX 4096        /* most sockets a list or socket_file may give */
#define MD_LINE_MAX (PATH_MAX + 2) /* a line of socket_file */
#define MD_CONNECT_TIMEOUT_S 10
#define MD_ROW_BYTES_MAX 60000     /* VARBINARY payload: a row stays under 65,535 bytes */
#define MD_POOL_MIN (6 << 20)      /* innodb_buffer_pool_size's floor, with some room */
#define MD_FIELDS 6                /* id, shop, display_no, created_ms, total_cents, payload */

static const idb_opt_decl md_options[] = {
    { .name = "socket", .type = IDB_OPT_STR, .def = "",
      .help = "a running server's Unix socket, or PATH,PATH,... one per shard (k-th for shard "
              "k); empty = a private server per shard" },
    { .name = "socket_file", .type = IDB_OPT_STR, .def = "",
      .help = "file with one server socket path a line (shard k uses line k)" },
    { .name = "user", .type = IDB_OPT_STR, .def = "",
      .help = "database user for socket= (empty: the login user, unix_socket authentication)" },
    { .name = "buffer_pool_bytes", .type = IDB_OPT_INT, .def = "8388608",
      .help = "private server: innodb_buffer_pool_size", .min = MD_POOL_MIN,
      .max = INT64_C(1) << 40 },
    { .name = "flush_log_at_trx_commit", .type = IDB_OPT_INT, .def = "2",
      .help = "private server: innodb_flush_log_at_trx_commit (0, 1 = fsync per commit, "
              "2 = write per commit, fsync per second)", .min = 0, .max = 2 },
    { .name = "page_size", .type = IDB_OPT_INT, .def = "16384",
      .help = "private server: innodb_page_size (4096, 8192, 16384, 32768, 65536)",
      .min = 4096, .max = 65536 },
    { .name = "secondary", .type = IDB_OPT_INT, .def = "0",
      .help = "1: BIGINT AUTO_INCREMENT primary key, the ID in a unique secondary index",
      .min = 0, .max = 1 },
    { .name = "isolation", .type = IDB_OPT_ENUM, .def = "repeatable_read",
      .help = "every writer session's transaction isolation (InnoDB's default: "
              "repeatable_read)", .choices = "read_committed|repeatable_read|serializable" },
    { .name = "perf_schema", .type = IDB_OPT_ENUM, .def = "on",
      .help = "private server: performance_schema with InnoDB's mutex and sxlock "
              "instruments, for the wait columns (off: no wait figures)", .choices = "on|off" },
    { .name = "lock_wait_timeout", .type = IDB_OPT_INT, .def = "50",
      .help = "the sessions' innodb_lock_wait_timeout, seconds (InnoDB's default: 50)",
      .min = 1, .max = 1073741824 },
    { .name = "keep", .type = IDB_OPT_INT, .def = "0",
      .help = "1: keep the database on a user's server (default: dropped at the end)",
      .min = 0, .max = 1 },
    IDB_SECONDARY_OPTIONS,
    { .name = "row_bytes", .type = IDB_OPT_INT, .def = "64",
      .help = "payload bytes per row (derived from the key)", .min = 0, .max = MD_ROW_BYTES_MAX },
    { .name = IDB_STORE_AUTOINC, .type = IDB_OPT_INT, .def = "0",
      .help = "1: the id is AUTO_INCREMENT, assigned by the server (set by the runner for "
              "strategy autoinc)", .min = 0, .max = 1 },
    { .name = IDB_STORE_SHARD, .type = IDB_OPT_INT, .def = "0",
      .help = "this store's shard (set by the runner)", .min = 0, .max = 1 << 20 },
    { .name = IDB_STORE_SHARDS, .type = IDB_OPT_INT, .def = "1",
      .help = "the run's shard count (set by the runner)", .min = 1, .max = 1 << 20 },
    { 0 },
};

/* ---- choosing the server: socket= and socket_file= ---------------------------------- */

/* Check one socket path of a list (len bytes at p). 0 or IDB_EINPUT. */
static int check_socket(const char *p, size_t len, const char *from, idb_err *err)
{
    if (len == 0)
        return idb_fail(err, IDB_EINPUT, "mariadb: %s: an empty socket path", from);
    if (p[0] != '/')
        return idb_fail(err, IDB_EINPUT, "mariadb: %s: socket '%.*s' is not an absolute path",
                        from, (int)len, p);
    if (len >= sizeof ((struct sockaddr_un *)0)->sun_path)
        return idb_fail(err, IDB_EINPUT, "mariadb: %s: socket path '%.*s' is longer than a "
                        "Unix socket path may be (%zu bytes)", from, (int)len, p,
                        sizeof ((struct sockaddr_un *)0)->sun_path - 1);
    return 0;
}

/* Walk the socket list of socket= (commas) and of socket_file= (lines): check every entry,
 * count them into *n and copy entry number want (if >= 0) into out (PATH_MAX bytes).
 * Returns 0 or IDB_EINPUT (a malformed entry, an unreadable file). */
static int walk_sockets(const idb_opts *o, int want, int *n, char *out, idb_err *err)
{
    const char *list = idb_opts_str(o, "socket"), *file = idb_opts_str(o, "socket_file");
    *n = 0;
    if (list[0] && file[0])
        return idb_fail(err, IDB_EINPUT, "mariadb: give socket= or socket_file=, not both");
    for (const char *p = list; list[0]; p++) {
        size_t len = strcspn(p, ",");
        int rc = check_socket(p, len, "socket", err);
        if (rc) return rc;
        if (*n == want) snprintf(out, PATH_MAX, "%.*s", (int)len, p);
        (*n)++;
        p += len;
        if (!*p) break;
    }
    if (!file[0]) return 0;
    FILE *f = fopen(file, "r");
    if (!f) return idb_fail(err, IDB_EINPUT, "mariadb: socket_file %s: %s", file,
                            strerror(errno));
    char line[MD_LINE_MAX];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\r\n");
        if (len == 0 || line[0] == '#') continue;
        rc = check_socket(line, len, file, err);
        if (!rc && *n == want) snprintf(out, PATH_MAX, "%.*s", (int)len, line);
        if (!rc && ++*n > MD_SOCKETS_MAX)
            rc = idb_fail(err, IDB_EINPUT, "mariadb: %s: more than %d sockets", file,
                          MD_SOCKETS_MAX);
    }
    fclose(f);
    if (!rc && *n == 0) rc = idb_fail(err, IDB_EINPUT, "mariadb: %s names no socket", file);
    return rc;
}

/* The socket shard k of shards uses into out (PATH_MAX bytes; "" for a private server).
 * IDB_EINPUT for a malformed list or one with fewer sockets than shards (but more than 1). */
static int pick_socket(const idb_opts *o, char *out, idb_err *err)
{
    int k = (int)idb_opts_int(o, IDB_STORE_SHARD), shards = (int)idb_opts_int(o, IDB_STORE_SHARDS);
    int n = 0;
    out[0] = 0;
    int rc = walk_sockets(o, k, &n, out, err);
    if (rc || n == 0) return rc;
    if (n == 1) return k > 0 ? walk_sockets(o, 0, &n, out, err) : 0;
    if (n < shards)
        return idb_fail(err, IDB_EINPUT, "mariadb: %d shards need one socket each (or one for "
                        "all), %d given", shards, n);
    return 0;
}

/* The check hook: the socket list is well-formed; the payload fits a row. */
static int md_check(const idb_opts *o, int key_bytes, idb_err *err)
{
    char sock[PATH_MAX];
    int rc = idb_store_check_width("mariadb", key_bytes, err);
    if (!rc) rc = pick_socket(o, sock, err);
    int64_t ps = idb_opts_int(o, "page_size");
    if (!rc && idb_opts_int(o, IDB_STORE_AUTOINC) && idb_opts_int(o, "secondary"))
        rc = idb_fail(err, IDB_EINPUT, "mariadb: strategy autoinc makes id the table's one "
                      "AUTO_INCREMENT column: secondary=1 (seq AUTO_INCREMENT) cannot go with it");
    if (!rc && (ps & (ps - 1)))
        rc = idb_fail(err, IDB_EINPUT, "mariadb: page_size=%lld: expected 4096, 8192, 16384, "
                      "32768 or 65536", (long long)ps);
    return rc;
}

/* ---- SQL helpers (mariadb.h) ---------------------------------------------------------- */

int md_fail(MYSQL *db, int code, const char *what, idb_err *err)
{
    return idb_fail(err, code, "mariadb: %s: %s", what, mysql_error(db));
}

int md_exec(md_store *s, const char *sql, int code, const char *what, idb_err *err)
{
    if (mysql_query(s->db, sql) != 0) return md_fail(s->db, code, what, err);
    MYSQL_RES *res = mysql_store_result(s->db);   /* e.g. ANALYZE's status rows */
    if (res) mysql_free_result(res);
    else if (mysql_field_count(s->db)) return md_fail(s->db, code, what, err);
    return 0;
}

int md_query_i64(md_store *s, const char *sql, int64_t *v, idb_err *err)
{
    *v = -1;
    if (mysql_query(s->db, sql) != 0) return md_fail(s->db, IDB_EIO, sql, err);
    MYSQL_RES *res = mysql_store_result(s->db);
    if (!res) return md_fail(s->db, IDB_EIO, sql, err);
    MYSQL_ROW row = mysql_fetch_row(res);
    if (row && row[0]) *v = strtoll(row[0], NULL, 10);
    mysql_free_result(res);
    return 0;
}

/* ---- open ----------------------------------------------------------------------------- */

/* 1 for a server error a new transaction may not meet again: a deadlock, a lock wait
 * timeout (InnoDB rolled the statement or the transaction back). */
static int md_retryable(unsigned e) { return e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT; }

/* SET SESSION TRANSACTION's level for isolation= (its choices' order). */
static const char *const md_isolation_sql[] = {
    "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE",
};

/* The session settings of every writer: isolation= and lock_wait_timeout=. */
static int md_session(md_store *s, idb_err *err)
{
    char sql[MD_SQL_MAX];
    snprintf(sql, sizeof sql, "SET SESSION TRANSACTION ISOLATION LEVEL %s",
             md_isolation_sql[s->isolation]);
    int rc = md_exec(s, sql, IDB_EIO, "isolation", err);
    snprintf(sql, sizeof sql, "SET SESSION innodb_lock_wait_timeout = %lld",
             (long long)s->lock_wait_s);
    return rc ? rc : md_exec(s, sql, IDB_EIO, "innodb_lock_wait_timeout", err);
}

/* Connect s->db to s->socket as user (NULL: the login user) (mariadb.h). */
int md_connect(md_store *s, const char *user, idb_err *err)
{
    unsigned timeout = MD_CONNECT_TIMEOUT_S;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        s->db = mysql_init(NULL);
        if (!s->db) return idb_fail(err, IDB_ENOMEM, "mariadb: out of memory");
        mysql_optionsv(s->db, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
        if (mysql_real_connect(s->db, NULL, user, NULL, NULL, 0, s->socket, 0)) return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double waited = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
        if (mysql_errno(s->db) != CR_SERVER_LOST || waited >= s->connect_wait_s)
            return idb_fail(err, IDB_EIO, "mariadb: cannot connect to the server at %s: %s",
                            s->socket, mysql_error(s->db));
        mysql_close(s->db);
        s->db = NULL;
        nanosleep(&(struct timespec){ 0, 200000000L }, NULL);
    }
}

/* The CREATE TABLE statement for s into sql (MD_SQL_MAX bytes) (mariadb.h). */
void md_table_sql(const md_store *s, char *sql)
{
    char idtype[32];
    if (s->key_bytes == 8) snprintf(idtype, sizeof idtype, "BIGINT UNSIGNED");
    else snprintf(idtype, sizeof idtype, "BINARY(%d)", s->key_bytes);
    snprintf(sql, MD_SQL_MAX,
             "CREATE TABLE orders (%s id %s NOT NULL%s, shop INT UNSIGNED NOT NULL, "
             "display_no INT UNSIGNED NOT NULL, created_ms BIGINT NOT NULL, "
             "total_cents BIGINT NOT NULL, payload VARBINARY(%d) NOT NULL, %s) "
             "ENGINE=InnoDB ROW_FORMAT=DYNAMIC STATS_PERSISTENT=1 STATS_AUTO_RECALC=0",
             s->secondary ? "seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT," : "", idtype,
             s->autoinc ? " AUTO_INCREMENT" : "",
             s->row_bytes ? s->row_bytes : 1,
             s->secondary ? "PRIMARY KEY (seq), UNIQUE KEY id_key (id)" : "PRIMARY KEY (id)");
}

/* Bind s->bind's six entries to s's row fields (see mariadb.h). */
void md_bind_row(md_store *s, unsigned long payload_cap)
{
    MYSQL_BIND *b = s->bind;
    memset(b, 0, sizeof s->bind);
    s->id_len = (unsigned long)s->key_bytes;
    b[0] = s->key_bytes == 8
        ? (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &s->id_u64,
                        .is_unsigned = 1 }
        : (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_BLOB, .buffer = s->id_buf,
                        .buffer_length = s->id_len, .length = &s->id_len };
    b[1] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &s->shop, .is_unsigned = 1 };
    b[2] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONG, .buffer = &s->display_no,
                         .is_unsigned = 1 };
    b[3] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &s->created_ms };
    b[4] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_LONGLONG, .buffer = &s->total_cents };
    b[5] = (MYSQL_BIND){ .buffer_type = MYSQL_TYPE_BLOB, .buffer = s->payload,
                         .buffer_length = payload_cap, .length = &s->payload_len };
}

md_store *md_alloc(int key_bytes, int row_bytes, const char *dbname, idb_err *err)
{
    md_store *s = calloc(1, sizeof *s);
    if (s && !(s->payload = malloc((size_t)row_bytes + 1))) {
        free(s);
        s = NULL;
    }
    if (!s) {
        idb_fail(err, IDB_ENOMEM, "out of memory");
        return NULL;
    }
    s->key_bytes = key_bytes;
    s->row_bytes = row_bytes;
    if (dbname) snprintf(s->dbname, sizeof s->dbname, "%s", dbname);
    return s;
}

/* Bind the INSERT's six parameters to s's row fields. */
static void bind_insert(md_store *s)
{
    md_bind_row(s, (unsigned long)s->row_bytes);
    s->payload_len = (unsigned long)s->row_bytes;
}

/* Create s's database and table, prepare the INSERT, turn autocommit off. */
static int md_schema(md_store *s, idb_err *err)
{
    char sql[MD_SQL_MAX];
    snprintf(sql, sizeof sql, "CREATE DATABASE `%s`", s->dbname);
    int rc = md_exec(s, sql, IDB_EIO, "creating the database", err);
    if (rc) return rc;
    s->created_db = 1;
    if (mysql_select_db(s->db, s->dbname) != 0) return md_fail(s->db, IDB_EIO, "USE", err);
    md_table_sql(s, sql);
    rc = md_exec(s, sql, IDB_EIO, "creating the table", err);
    return rc ? rc : md_prepare(s, err);
}

/* Prepare and bind the INSERT on s->db (its database selected), turn autocommit off
 * (mariadb.h). */
int md_prepare(md_store *s, idb_err *err)
{
    static const char ins[] = "INSERT INTO orders (id, shop, display_no, created_ms, "
                              "total_cents, payload) VALUES (?, ?, ?, ?, ?, ?)";
    static const char auto_ins[] = "INSERT INTO orders (shop, display_no, created_ms, "
                                   "total_cents, payload) VALUES (?, ?, ?, ?, ?)";
    const char *q = s->autoinc ? auto_ins : ins;
    s->ins = mysql_stmt_init(s->db);
    if (!s->ins) return idb_fail(err, IDB_ENOMEM, "mariadb: out of memory");
    if (mysql_stmt_prepare(s->ins, q, strlen(q)) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: prepare: %s", mysql_stmt_error(s->ins));
    bind_insert(s);
    if (mysql_stmt_bind_param(s->ins, s->bind + (s->autoinc ? 1 : 0)) != 0)   /* no id */
        return idb_fail(err, IDB_EIO, "mariadb: bind: %s", mysql_stmt_error(s->ins));
    if (mysql_autocommit(s->db, 0) != 0) return md_fail(s->db, IDB_EIO, "autocommit", err);
    return 0;
}

/* Close s's prepared statements (the INSERT, the read queries) (mariadb.h). */
void md_stmts_close(md_store *s)
{
    if (s->ins) mysql_stmt_close(s->ins);
    s->ins = NULL;
    for (int k = 0; k < MD_QUERIES; k++) {
        if (s->qs[k]) mysql_stmt_close(s->qs[k]);
        s->qs[k] = NULL;
    }
}

/* Close the connection and free s (NULL is fine). On a user's server the database is
 * dropped unless keep=1; a private server is stopped, its files stay in the shard's dir
 * (mariadb.h). */
void md_close(void *h)
{
    md_store *s = h;
    if (!s) return;
    md_stmts_close(s);
    if (s->db && s->main) md_waits_end(s);           /* a client's waits, before it goes */
    if (s->main) s->main->rows += s->rows;           /* and its committed rows (fill) */
    if (s->db) {
        char sql[MD_SQL_MAX];
        if (s->in_txn) mysql_rollback(s->db);
        md_monitors_off(s);
        snprintf(sql, sizeof sql, "DROP DATABASE `%s`", s->dbname);
        if (s->created_db && !s->keep && !s->server) mysql_query(s->db, sql);  /* best effort */
        mysql_close(s->db);
    }
    md_server_stop(s);
    free(s->payload);
    free(s->check);
    free(s);
}

/* Open shard k's store: start its private server in dir/mariadb (without socket=) or pick
 * its socket, connect, create database idbench_<pid>_<n>_s<k> and the orders table for
 * key_bytes-wide keys. IDB_EINPUT for bad options; IDB_EIO when the server cannot be started
 * or reached or refuses; on failure what this call created on a user's server is dropped
 * and a server it started is stopped. */
static int md_open(const char *dir, const idb_opts *o, int key_bytes, void **h, idb_err *err)
{
    int rc = md_check(o, key_bytes, err);
    if (rc) return rc;
    md_store *s = md_alloc(key_bytes, (int)idb_opts_int(o, "row_bytes"), NULL, err);
    if (!s) return IDB_ENOMEM;
    s->secondary = (int)idb_opts_int(o, "secondary");
    s->keep = (int)idb_opts_int(o, "keep");
    s->isolation = (int)idb_opts_int(o, "isolation");
    s->lock_wait_s = idb_opts_int(o, "lock_wait_timeout");
    s->autoinc = (int)idb_opts_int(o, IDB_STORE_AUTOINC);
    static int opened;                             /* stores this process opened */
    snprintf(s->dbname, sizeof s->dbname, "idbench_%ld_%d_s%lld", (long)getpid(), opened++,
             (long long)idb_opts_int(o, IDB_STORE_SHARD));
    rc = pick_socket(o, s->socket, err);
    snprintf(s->user, sizeof s->user, "%s", idb_opts_str(o, "user"));
    if (!rc && !s->socket[0]) rc = md_server_start(s, dir, o, NULL, 0, err);
    if (!rc) rc = md_connect(s, s->user[0] ? s->user : NULL, err);
    if (!rc) rc = md_session(s, err);
    if (!rc) rc = md_query_i64(s, "SELECT @@innodb_page_size", &s->page_size, err);
    if (!rc && !s->server) rc = md_settings_check(s, o, err);
    if (!rc) rc = md_schema(s, err);
    for (const idb_secondary *x = idb_store_secondaries; !rc && x->option; x++)
        if (idb_opts_int(o, x->option)) rc = md_exec(s, x->sql, IDB_EIO, x->option, err);
    if (!rc) rc = md_monitors_on(s, err);
    if (!rc) rc = md_counters_read(s, &s->start, err);
    if (!rc) md_waits_begin(s);
    if (rc) {
        md_close(s);
        return rc;
    }
    *h = s;
    return 0;
}

/* ---- insert, commit, scan ------------------------------------------------------------- */

/* Execute the prepared INSERT for row. IDB_EINPUT for a duplicate key, IDB_EIO otherwise
 * (a server gone: "Lost connection", "server has gone away"). */
static int md_insert(void *h, const idb_row *row, idb_err *err)
{
    md_store *s = h;
    if (row->id.len != s->key_bytes)
        return idb_fail(err, IDB_EINPUT, "mariadb: a %d-byte key in a store of %d-byte keys",
                        row->id.len, s->key_bytes);
    if (s->key_bytes == 8) s->id_u64 = idb_get_be(row->id.b, 8);
    else memcpy(s->id_buf, row->id.b, (size_t)s->key_bytes);
    s->shop = row->shop;
    s->display_no = row->display_no;
    s->created_ms = row->created_ms;
    s->total_cents = row->total_cents;
    idb_payload_fill(s->payload, s->row_bytes, &row->id);
    s->in_txn = 1;
    if (mysql_stmt_execute(s->ins) != 0) {
        unsigned e = mysql_stmt_errno(s->ins);
        return idb_fail(err, e == ER_DUP_ENTRY ? IDB_EINPUT : md_retryable(e) ? IDB_EBUSY
                        : IDB_EIO, "mariadb: insert: %s", mysql_stmt_error(s->ins));
    }
    s->pending++;
    return 0;
}

int md_insert_assigned(void *h, idb_row *row, idb_err *err)
{
    md_store *s = h;
    if (!s->autoinc)
        return idb_fail(err, IDB_EINPUT, "mariadb: insert_assigned on a table whose id is "
                        "not AUTO_INCREMENT");
    idb_id order;
    idb_payload_order_key(row->shop, row->display_no, &order);
    s->shop = row->shop;
    s->display_no = row->display_no;
    s->created_ms = row->created_ms;
    s->total_cents = row->total_cents;
    idb_payload_fill(s->payload, s->row_bytes, &order);
    s->in_txn = 1;
    if (mysql_stmt_execute(s->ins) != 0) {
        unsigned e = mysql_stmt_errno(s->ins);
        return idb_fail(err, e == ER_DUP_ENTRY ? IDB_EINPUT : md_retryable(e) ? IDB_EBUSY
                        : IDB_EIO, "mariadb: insert: %s", mysql_stmt_error(s->ins));
    }
    uint64_t key = mysql_stmt_insert_id(s->ins);
    if (key == 0)
        return idb_fail(err, IDB_EIO, "mariadb: insert: the server assigned no key");
    idb_id_set_u64(&row->id, key);
    s->pending++;
    return 0;
}

/* Commit the open transaction (none open: nothing to do). IDB_EIO when the server fails. */
static int md_commit(void *h, idb_err *err)
{
    md_store *s = h;
    if (!s->in_txn) return 0;
    s->in_txn = 0;
    int64_t n = s->pending;
    s->pending = 0;
    if (mysql_commit(s->db) != 0)
        return md_fail(s->db, md_retryable(mysql_errno(s->db)) ? IDB_EBUSY : IDB_EIO, "commit",
                       err);
    s->rows += n;
    return 0;
}

/* Roll back the open transaction (store.h, version 2: after IDB_EBUSY). */
static void md_rollback(void *h)
{
    md_store *s = h;
    mysql_rollback(s->db);
    s->in_txn = 0;
    s->pending = 0;
}

/* A client (store.h, version 2): its own session on h's server, in h's database, with the
 * INSERT prepared; it creates and drops nothing and runs no server. IDB_EIO when it
 * cannot connect. */
static int md_open_client(void *h, int c, void **client, idb_err *err)
{
    (void)c;
    md_store *m = h;
    md_store *s = calloc(1, sizeof *s);
    if (!s) return idb_fail(err, IDB_ENOMEM, "out of memory");
    s->main = m;
    s->isolation = m->isolation;
    s->lock_wait_s = m->lock_wait_s;
    s->key_bytes = m->key_bytes;
    s->row_bytes = m->row_bytes;
    s->secondary = m->secondary;
    s->autoinc = m->autoinc;
    s->page_size = m->page_size;
    memcpy(s->dbname, m->dbname, sizeof s->dbname);
    memcpy(s->socket, m->socket, sizeof s->socket);
    memcpy(s->user, m->user, sizeof s->user);
    int rc = (s->payload = malloc((size_t)s->row_bytes + 1)) ? 0
           : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = md_connect(s, s->user[0] ? s->user : NULL, err);
    if (!rc) rc = md_session(s, err);
    if (!rc && mysql_select_db(s->db, s->dbname) != 0) rc = md_fail(s->db, IDB_EIO, "USE", err);
    if (!rc) rc = md_prepare(s, err);
    if (!rc) md_waits_begin(s);
    if (rc) {
        md_close(s);
        return rc;
    }
    *client = s;
    return 0;
}

/* One result row (text protocol) into r; checks the payload against the key.
 * Returns 0 or IDB_EIO. */
static int parse_row(const md_store *s, MYSQL_ROW f, const unsigned long *len, idb_row *r,
                     uint8_t *check, idb_err *err)
{
    memset(r, 0, sizeof *r);
    r->id.len = (uint8_t)s->key_bytes;
    if (s->key_bytes == 8) idb_put_be(r->id.b, strtoull(f[0], NULL, 10), 8);
    else if (len[0] == (unsigned long)s->key_bytes) memcpy(r->id.b, f[0], len[0]);
    else return idb_fail(err, IDB_EIO, "mariadb: scan: a key of %lu bytes", len[0]);
    r->shop = (uint32_t)strtoul(f[1], NULL, 10);
    r->display_no = (uint32_t)strtoul(f[2], NULL, 10);
    r->created_ms = strtoll(f[3], NULL, 10);
    r->total_cents = strtoll(f[4], NULL, 10);
    idb_id from = r->id;                           /* the payload's source (payload.h) */
    if (s->autoinc) idb_payload_order_key(r->shop, r->display_no, &from);
    idb_payload_fill(check, s->row_bytes, &from);
    if (len[5] != (unsigned long)s->row_bytes || memcmp(check, f[5], len[5]) != 0)
        return idb_fail(err, IDB_EIO, "mariadb: scan: a row's payload is not the one written");
    return 0;
}

/* Call fn on every row in key order (text protocol, rows streamed). IDB_EIO on a server
 * failure or a row that does not read back as written. */
static int md_scan(void *h, int (*fn)(void *ctx, const idb_row *row), void *ctx, idb_err *err)
{
    md_store *s = h;
    static const char q[] = "SELECT id, shop, display_no, created_ms, total_cents, payload "
                            "FROM orders ORDER BY id";
    if (mysql_query(s->db, q) != 0) return md_fail(s->db, IDB_EIO, "scan", err);
    MYSQL_RES *res = mysql_use_result(s->db);
    if (!res) return md_fail(s->db, IDB_EIO, "scan", err);
    uint8_t *check = malloc((size_t)s->row_bytes + 1);
    int rc = check ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    MYSQL_ROW f;
    while (!rc && (f = mysql_fetch_row(res))) {
        idb_row r;
        rc = parse_row(s, f, mysql_fetch_lengths(res), &r, check, err);
        if (!rc && fn(ctx, &r)) break;
    }
    if (!rc && mysql_errno(s->db)) rc = md_fail(s->db, IDB_EIO, "scan", err);
    while (mysql_fetch_row(res)) {}                /* drain after an early stop */
    mysql_free_result(res);
    free(check);
    if (!rc && mysql_commit(s->db) != 0) rc = md_fail(s->db, IDB_EIO, "scan", err);
    return rc;
}

/* The server_cpu_ns hook (store.h, version 3): the private server's CPU (mariadbd's
 * threads are in its process); -1 on a user's server. */
static int64_t md_server_cpu_ns(void *h)
{
    const md_store *s = h;
    return s->server ? idb_server_cpu_ns(s->server) : -1;
}

const idb_store idb_store_mariadb = {
    .version = IDB_STORE_VERSION,
    .name = "mariadb",
    .summary = "MariaDB 10.11 server, InnoDB (the ID's B-tree is the clustered index)",
    .options = md_options,
    .open = md_open,
    .insert = md_insert,
    .commit = md_commit,
    .stats = md_stats,
    .progress = md_progress,
    .close = md_close,
    .scan = md_scan,
    .check = md_check,
    .available = md_available,
    .clients = IDB_STORE_CLIENTS_ANY,
    .open_client = md_open_client,
    .rollback = md_rollback,
    .server_cpu_ns = md_server_cpu_ns,
    .open_read = md_open_read,
    .get = md_get,
    .read_counts = md_read_counts,
    .close_read = md_close,
    .query = md_query,
    .insert_assigned = md_insert_assigned,
};

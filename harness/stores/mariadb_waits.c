/* mariadb_waits.c — the mariadb store's lock and latch waits (store.h: idb_store_waits,
 * kind IDB_WAITS_NS: time waited, summed over the run's writer sessions).
 *
 * From performance_schema (on in a private server with perf_schema=on, the default; on a
 * user's server when it has it on): each writer session's summed wait time by instrument
 * (events_waits_summary_by_thread_by_event_name, picoseconds, the session's thread found by
 * performance_schema.threads.PROCESSLIST_ID = CONNECTION_ID()), read at the end of open()
 * and again at the session's end (a client's close(), open()'s handle's stats()); the
 * differences are added up by instrument class (md_wait_class):
 *   wait/synch/sxlock/innodb/index_tree_rw_lock   index_tree
 *   any other wait/synch/ instrument               latch_other (innodb mutexes, sxlocks)
 *   wait/io/file/                                  io
 *   anything else (table io and table locks, which hold the waits above; sockets)
 *                                                   not counted.
 * Row lock waits: Innodb_row_lock_time (ms, server-wide) from open() to stats(), on a
 * private server only (a user's server counts other sessions too: unknown there).
 * Page latches (a buffer block's lock) are not instrumented by MariaDB 10.11 (no
 * performance_schema key): wait_share_page_latch stays unknown, and those waits are in no
 * column (they show as time not waiting).
 * A private server with perf_schema=on gets the settings of md_waits_settings: the
 * instruments wait/synch/{sxlock,mutex,rwlock}/innodb/% enabled and timed (the rwlocks,
 * among them lock_sys's lock_latch, are off by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mariadb.h"

#define PS_PER_NS 1000

const char *const md_waits_settings[MD_WAITS_SETTINGS] = {
    "performance_schema=ON",
    "performance_schema_instrument=wait/synch/sxlock/innodb/%=ON",
    "performance_schema_instrument=wait/synch/mutex/innodb/%=ON",
    "performance_schema_instrument=wait/synch/rwlock/innodb/%=ON",
};

/* Instrument name prefixes and their class; the first match wins. */
static const struct { const char *prefix; int cls; } md_classes[] = {
    { "wait/synch/sxlock/innodb/index_tree_rw_lock", IDB_WAIT_INDEX_TREE },
    { "wait/synch/", IDB_WAIT_LATCH_OTHER },
    { "wait/io/file/", IDB_WAIT_IO },
};

int md_wait_class(const char *event)
{
    for (size_t i = 0; event && i < sizeof md_classes / sizeof *md_classes; i++)
        if (strncmp(event, md_classes[i].prefix, strlen(md_classes[i].prefix)) == 0)
            return md_classes[i].cls;
    return -1;
}

static const char md_waits_sql[] =
    "SELECT EVENT_NAME, SUM_TIMER_WAIT "
    "FROM performance_schema.events_waits_summary_by_thread_by_event_name "
    "WHERE SUM_TIMER_WAIT > 0 AND THREAD_ID = (SELECT THREAD_ID FROM "
    "performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID())";

/* This session's wait time so far by class (ps) into ps[]. 0, or -1 when
 * performance_schema cannot be read (off, or no privilege). */
static int session_waits(md_store *s, int64_t *ps)
{
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) ps[c] = 0;
    if (mysql_query(s->db, md_waits_sql) != 0) return -1;
    MYSQL_RES *res = mysql_store_result(s->db);
    if (!res) return -1;
    for (MYSQL_ROW row; (row = mysql_fetch_row(res));) {
        int c = md_wait_class(row[0]);
        if (c >= 0 && row[1]) ps[c] += strtoll(row[1], NULL, 10);
    }
    mysql_free_result(res);
    return 0;
}

/* The server's Innodb_row_lock_time (ms), -1 when it cannot be read. */
static int64_t row_lock_ms(md_store *s)
{
    int64_t v = -1;
    idb_err err = { 0 };
    if (md_query_i64(s, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                     "WHERE VARIABLE_NAME = 'INNODB_ROW_LOCK_TIME'", &v, &err) != 0)
        return -1;
    return v;
}

void md_waits_begin(md_store *s)
{
    int64_t on = 0;
    idb_err err = { 0 };
    s->waits_ok = md_query_i64(s, "SELECT @@performance_schema", &on, &err) == 0 && on == 1 &&
                  session_waits(s, s->waits_base) == 0;     /* off: its tables are empty */
    if (!s->main) s->row_lock_ms0 = s->server ? row_lock_ms(s) : -1;
}

void md_waits_end(md_store *s)
{
    md_store *m = s->main ? s->main : s;
    int64_t now[IDB_WAIT_CLASSES];
    if (!s->waits_ok || session_waits(s, now) != 0) {
        m->waits_failed = 1;
        return;
    }
    s->waits_ok = 0;                 /* counted once */
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) m->waits_ps[c] += now[c] - s->waits_base[c];
}

void md_waits_stats(md_store *s, idb_store_waits *w)
{
    *w = (idb_store_waits){ .kind = IDB_WAITS_NONE };
    md_waits_end(s);
    if (s->waits_failed) return;
    w->kind = IDB_WAITS_NS;
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) w->v[c] = s->waits_ps[c] / PS_PER_NS;
    int64_t rl = s->row_lock_ms0 < 0 ? -1 : row_lock_ms(s);
    w->v[IDB_WAIT_ROW_LOCK] = rl < 0 ? -1 : (rl - s->row_lock_ms0) * 1000000;
    w->v[IDB_WAIT_PAGE_LATCH] = -1;                         /* not instrumented (header) */
    w->v[IDB_WAIT_LWLOCK_BUFFER_CONTENT] = w->v[IDB_WAIT_LWLOCK_BUFFER_MAPPING] = -1;
    w->v[IDB_WAIT_LOCK] = w->v[IDB_WAIT_OTHER] = -1;        /* postgres's classes */
}

/* readrec.c — the insert record (see readrec.h): built row by row, written atomically,
 * loaded through the bounded reader. */
#include "readrec.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "readfile.h"

#define MAGIC "idbench insert record 1\n"
#define FIXED 28                         /* shard, shop, display_no, created_ms, total_cents */
#define FILE_MAX ((size_t)1 << 34)       /* 16 GiB: 300M rows of 16-byte IDs */
#define HEADER_MAX 16384                 /* the text part, end line included */
#define SHARDS_MAX 1024                  /* cmd_insert's --shards */

/* 1 when s fits a header line of at most cap bytes (NUL included) with no newline. */
static int fits(const char *s, size_t cap)
{
    return strlen(s) < cap && !strchr(s, '\n');
}

int idb_readrec_init(idb_readrec *rec, const char *strategy, const char *store, int width,
                     int shards, uint64_t seed, const char *const *kv, int nkv, idb_err *err)
{
    memset(rec, 0, sizeof *rec);
    if (!fits(strategy, sizeof rec->strategy) || !fits(store, sizeof rec->store) ||
        nkv > IDB_READREC_KV_MAX)
        return idb_fail(err, IDB_EINPUT, "insert record: a name or the options do not fit");
    for (int i = 0; i < nkv; i++) {
        if (!fits(kv[i], sizeof rec->kv[i]))
            return idb_fail(err, IDB_EINPUT, "insert record: option '%.40s...' does not fit "
                            "(too long, or a newline in it)", kv[i]);
        strcpy(rec->kv[i], kv[i]);
    }
    strcpy(rec->strategy, strategy);
    strcpy(rec->store, store);
    rec->nkv = nkv;
    rec->width = width;
    rec->shards = shards;
    rec->seed = seed;
    rec->entry = FIXED + (size_t)width;
    return 0;
}

int idb_readrec_then(idb_readrec *rec, const char *strategy, int64_t rows, idb_err *err)
{
    if (!fits(strategy, sizeof rec->then_strategy) || !*strategy || rows < 1)
        return idb_fail(err, IDB_EINPUT, "insert record: the --then strategy does not fit");
    strcpy(rec->then_strategy, strategy);
    rec->then_rows = rows;
    return 0;
}

/* One entry of row (shard shard, a width-byte ID) at p (see readrec.h). */
static void encode(uint8_t *p, const idb_row *row, int shard, int width)
{
    idb_put_be(p, (uint64_t)shard, 4);
    idb_put_be(p + 4, row->shop, 4);
    idb_put_be(p + 8, row->display_no, 4);
    idb_put_be64(p + 12, (uint64_t)row->created_ms);
    idb_put_be64(p + 20, (uint64_t)row->total_cents);
    memcpy(p + FIXED, row->id.b, (size_t)width);
}

int idb_readrec_add(idb_readrec *rec, const idb_row *row, int shard, idb_err *err)
{
    if (row->id.len != rec->width)
        return idb_fail(err, IDB_EINPUT, "insert record: a %d-byte ID in a record of %d",
                        row->id.len, rec->width);
    if ((size_t)rec->rows == rec->cap) {
        size_t cap = rec->cap ? rec->cap * 2 : 4096;
        uint8_t *d = realloc(rec->data, cap * rec->entry);
        if (!d) return idb_fail(err, IDB_ENOMEM, "out of memory for the insert record");
        rec->data = d;
        rec->cap = cap;
    }
    encode(rec->data + (size_t)rec->rows++ * rec->entry, row, shard, rec->width);
    return 0;
}

void idb_readrec_get(const idb_readrec *rec, int64_t i, idb_row *row, int *shard)
{
    const uint8_t *p = rec->data + (size_t)i * rec->entry;
    *shard = (int)idb_get_be(p, 4);
    *row = (idb_row){ .shop = (uint32_t)idb_get_be(p + 4, 4),
                      .display_no = (uint32_t)idb_get_be(p + 8, 4),
                      .created_ms = (int64_t)idb_get_be64(p + 12),
                      .total_cents = (int64_t)idb_get_be64(p + 20) };
    row->id.len = (uint8_t)rec->width;
    memcpy(row->id.b, p + FIXED, (size_t)rec->width);
}

/* dir/insert-STORE.rec into path (cap bytes). IDB_EINPUT when it does not fit. */
static int rec_path(const char *dir, const char *store, char *path, size_t cap, idb_err *err)
{
    if ((size_t)snprintf(path, cap, "%s/insert-%s.rec", dir, store) >= cap)
        return idb_fail(err, IDB_EINPUT, "directory path is too long");
    return 0;
}

#define WRITE_BUFFER (1 << 16)           /* the writer's stdio buffer */

int idb_readrec_create(idb_readrec_writer *w, const char *dir, const idb_readrec *rec,
                       idb_err *err)
{
    char path[PATH_MAX];
    memset(w, 0, sizeof *w);
    int rc = rec_path(dir, rec->store, path, sizeof path, err);
    if (rc) return rc;
    if (!(w->f = idb_atomic_open(&w->a, path)))
        return idb_fail(err, IDB_EIO, "%s: cannot write: %s", path, strerror(errno));
    /* the buffer apart from the heap, where it would sit between the run's growing arrays */
    w->buf = mmap(NULL, WRITE_BUFFER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    if (w->buf == MAP_FAILED) w->buf = NULL;
    if (w->buf) setvbuf(w->f, w->buf, _IOFBF, WRITE_BUFFER);
    w->entry = rec->entry;
    w->width = rec->width;
    fprintf(w->f, MAGIC "strategy=%s\nstore=%s\nkey_bytes=%d\nshards=%d\nseed=%" PRIu64 "\n",
            rec->strategy, rec->store, rec->width, rec->shards, rec->seed);
    for (int i = 0; i < rec->nkv; i++) fprintf(w->f, "s=%s\n", rec->kv[i]);
    if (rec->then_strategy[0])
        fprintf(w->f, "then_strategy=%s\nthen_rows=%" PRId64 "\n", rec->then_strategy,
                rec->then_rows);
    fputs("end\n", w->f);
    fflush(w->f);              /* the header's bytes now: not in the run's write figures */
    return 0;
}

int idb_readrec_put(idb_readrec_writer *w, const idb_row *row, int shard, idb_err *err)
{
    uint8_t p[FIXED + IDB_ID_MAX];
    if (row->id.len != w->width)
        return idb_fail(err, IDB_EINPUT, "insert record: a %d-byte ID in a record of %d",
                        row->id.len, w->width);
    encode(p, row, shard, w->width);
    fwrite(p, w->entry, 1, w->f);                /* errors: at idb_readrec_finish */
    w->rows++;
    return 0;
}

int64_t idb_readrec_sync(idb_readrec_writer *w)
{
    if (!w->f) return 0;
    return fflush(w->f) == 0 ? w->rows * (int64_t)w->entry : -1;
}

int idb_readrec_finish(idb_readrec_writer *w, int failed, idb_err *err)
{
    if (!w->f) return 0;
    w->f = NULL;
    int rc = idb_atomic_commit(&w->a, failed);
    int e = errno;
    if (w->buf) munmap(w->buf, WRITE_BUFFER);    /* after the close that flushed it */
    w->buf = NULL;
    if (rc != 0 && !failed)
        return idb_fail(err, IDB_EIO, "%s: cannot write the insert record: %s", w->a.name,
                        strerror(e));
    return 0;
}

/* A decimal field of the header into *v within [lo, hi]; -1 when it is not one. */
static int dec_field(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

/* One header line (NUL-terminated, no newline) into rec. 0, or -1 when it is not a line of
 * the format. */
static int header_line(idb_readrec *rec, char *line)
{
    static const struct { const char *key; long long lo, hi; size_t off; } nums[] = {
        { "key_bytes", 1, IDB_ID_MAX, 0 }, { "shards", 1, SHARDS_MAX, 1 },
        { "seed", 0, INT64_MAX, 3 }, { "then_rows", 1, INT64_MAX, 4 },
    };
    char *eq = strchr(line, '=');
    if (!eq) return -1;
    *eq = 0;
    const char *val = eq + 1;
    if (strcmp(line, "s") == 0) {
        if (rec->nkv == IDB_READREC_KV_MAX || !fits(val, sizeof rec->kv[0])) return -1;
        strcpy(rec->kv[rec->nkv++], val);
        return 0;
    }
    static const struct { const char *key; size_t off; } names[] = {
        { "strategy", offsetof(idb_readrec, strategy) }, { "store", offsetof(idb_readrec, store) },
        { "then_strategy", offsetof(idb_readrec, then_strategy) },
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (strcmp(line, names[i].key) != 0) continue;
        char *to = (char *)rec + names[i].off;
        if (!*val || !fits(val, IDB_READREC_NAME_MAX)) return -1;
        strcpy(to, val);
        return 0;
    }
    for (size_t i = 0; i < sizeof nums / sizeof *nums; i++) {
        long long v;
        if (strcmp(line, nums[i].key) != 0) continue;
        if (dec_field(val, nums[i].lo, nums[i].hi, &v)) return -1;
        if (nums[i].off == 0) rec->width = (int)v;
        else if (nums[i].off == 1) rec->shards = (int)v;
        else if (nums[i].off == 3) rec->seed = (uint64_t)v;
        else rec->then_rows = v;
        return 0;
    }
    return -1;
}

/* The header of buf (len bytes) into rec; *body: where the entries start. -1 when it is
 * not the format's. */
static int parse_header(idb_readrec *rec, char *buf, size_t len, size_t *body)
{
    size_t m = strlen(MAGIC);
    if (len < m || memcmp(buf, MAGIC, m) != 0) return -1;
    size_t at = m, lim = len < HEADER_MAX ? len : HEADER_MAX;
    for (;;) {
        char *nl = at < lim ? memchr(buf + at, '\n', lim - at) : NULL;
        if (!nl) return -1;
        *nl = 0;
        char *line = buf + at;
        at = (size_t)(nl - buf) + 1;
        if (strcmp(line, "end") == 0) break;
        if (header_line(rec, line)) return -1;
    }
    *body = at;
    return rec->strategy[0] && rec->store[0] && rec->width && rec->shards ? 0 : -1;
}

int idb_readrec_load(const char *dir, const char *store, idb_readrec *rec, idb_err *err)
{
    char path[PATH_MAX];
    size_t len = 0, body = 0;
    memset(rec, 0, sizeof *rec);
    int rc = rec_path(dir, store, path, sizeof path, err);
    if (rc) return rc;
    char *buf = idb_read_input(path, FILE_MAX, IDB_EINPUT, &len, err);
    if (!buf) {
        if (errno == ENOENT)
            return idb_fail(err, IDB_EINPUT, "%s holds no insert record of %s (%s): not a "
                            "directory idbench insert --store %s --dir made", dir, store,
                            path, store);
        return err->code ? err->code : IDB_EIO;
    }
    int ok = parse_header(rec, buf, len, &body) == 0 && strcmp(rec->store, store) == 0;
    rec->entry = FIXED + (size_t)rec->width;
    if (ok) ok = (len - body) % rec->entry == 0;
    rec->rows = ok ? (int64_t)((len - body) / rec->entry) : 0;
    if (ok) ok = !rec->then_strategy[0] == !rec->then_rows && rec->then_rows <= rec->rows;
    if (!ok) {
        free(buf);
        memset(rec, 0, sizeof *rec);
        return idb_fail(err, IDB_EINPUT, "%s is not an idbench insert record", path);
    }
    memmove(buf, buf + body, len - body);      /* the entries, at the start of buf */
    rec->data = (uint8_t *)buf;
    rec->cap = (size_t)rec->rows;
    for (int64_t i = 0; i < rec->rows; i++)
        if (idb_get_be(rec->data + (size_t)i * rec->entry, 4) >= (uint64_t)rec->shards) {
            idb_readrec_free(rec);
            return idb_fail(err, IDB_EINPUT, "%s: entry %lld names a shard past %d", path,
                            (long long)i, rec->shards);
        }
    return 0;
}

void idb_readrec_free(idb_readrec *rec)
{
    free(rec->data);
    rec->data = NULL;
    rec->rows = 0;
    rec->cap = 0;
}

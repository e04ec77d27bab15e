/* lmdb_read.c — the lmdb store's read side (store.h version 3; store_read.h): point
 * lookups in <dir>/orders.lmdb as an insert run left it.
 *
 * The environment is opened read-only with MDB_NOLOCK (no writer can come: the read is the
 * only user of DIR) and MDB_NORDAHEAD (madvise(MADV_RANDOM) on the map, so the kernel reads
 * the page a lookup faults on, not its neighbours too). LMDB has no cache of its own: its
 * pages are the OS page cache's, mapped. So:
 *   misses      major page faults of the calling thread since open_read (getrusage
 *               RUSAGE_THREAD ru_majflt): a page the lookup touched that was not in memory.
 *               The lookups run on one thread, so the faults are theirs.
 *   read_pages  pages of data.mdb in the OS page cache now less those at open_read, in LMDB
 *               pages: what was read from the file. Counted with mincore over a second,
 *               never touched, read-only map of data.mdb (mincore reports a file map's page
 *               cache residency; LMDB's own map address is not exposed).
 * Both only count when the OS page cache had dropped the file's pages (`idbench read
 * --cache cold` does: runner/read.c); a lookup fully in memory counts none.
 * Each get() runs in the handle's one read txn, reset and renewed per lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_read.h"


typedef struct lm_reader {
    MDB_env *env;
    MDB_txn *txn;             /* reset between lookups */
    MDB_dbi dbi;
    int key_bytes, row_bytes;
    uint8_t *check;           /* row_bytes scratch bytes: the payload the key implies */
    int64_t majflt0, resident0;
    unsigned char *vec;       /* mincore's vector, one byte per OS page of the file */
    void *probe;              /* the untouched map of data.mdb for mincore, or NULL */
    size_t file_bytes;
} lm_reader;

/* Major faults of the calling thread so far, or -1. */
static int64_t major_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? (int64_t)ru.ru_majflt : -1;
}

/* Resident OS pages of the map's first file_bytes bytes, or -1. */
static int64_t resident(const lm_reader *r)
{
    if (!r->vec || !r->probe || mincore(r->probe, r->file_bytes, r->vec) != 0) return -1;
    long os = sysconf(_SC_PAGESIZE);
    int64_t n = 0;
    for (size_t i = 0; i < (r->file_bytes + (size_t)os - 1) / (size_t)os; i++) n += r->vec[i] & 1;
    return n;
}

void idb_lmdb_close_read(void *h)
{
    lm_reader *r = h;
    if (!r) return;
    if (r->txn) mdb_txn_abort(r->txn);
    if (r->env) mdb_env_close(r->env);
    if (r->probe) munmap(r->probe, r->file_bytes);
    free(r->check);
    free(r->vec);
    free(r);
}

/* Open the environment read-only (see the header) and its main database. */
static int reader_setup(lm_reader *r, const char *path, const idb_opts *o, idb_err *err)
{
    int rc = mdb_env_create(&r->env);
    if (!rc) rc = mdb_env_set_mapsize(r->env, (size_t)idb_opts_int(o, "map_mb") << 20);
    if (!rc) rc = mdb_env_open(r->env, path, MDB_RDONLY | MDB_NOLOCK | MDB_NORDAHEAD, 0644);
    if (!rc) rc = mdb_txn_begin(r->env, NULL, MDB_RDONLY, &r->txn);
    if (!rc) rc = mdb_dbi_open(r->txn, NULL, 0, &r->dbi);
    if (rc) return idb_fail(err, IDB_EIO, "lmdb: opening %s to read: %s", path, mdb_strerror(rc));
    mdb_txn_reset(r->txn);
    return 0;
}

int idb_lmdb_open_read(const char *dir, const idb_opts *o, int key_bytes, void **h,
                       idb_err *err)
{
    char path[PATH_MAX], data[PATH_MAX + 16];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/orders.lmdb", dir) >= sizeof path)
        return idb_fail(err, IDB_EINPUT, "lmdb: directory name too long");
    snprintf(data, sizeof data, "%s/data.mdb", path);
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || lstat(data, &st) != 0 ||
        !S_ISREG(st.st_mode))
        return idb_fail(err, IDB_EINPUT, "lmdb: %s holds no LMDB store (no %s)", dir, data);
    lm_reader *r = calloc(1, sizeof *r);
    if (!r) return idb_fail(err, IDB_ENOMEM, "out of memory");
    long os = sysconf(_SC_PAGESIZE);
    r->key_bytes = key_bytes;
    r->row_bytes = (int)idb_opts_int(o, "row_bytes");
    r->file_bytes = (size_t)st.st_size;
    r->check = malloc((size_t)r->row_bytes + 1);
    r->vec = malloc(r->file_bytes / (size_t)os + 2);
    int rc = r->check && r->vec ? reader_setup(r, path, o, err)
                                : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (rc) {
        idb_lmdb_close_read(r);
        return rc;
    }
    int fd = open(data, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && r->file_bytes) {
        r->probe = mmap(NULL, r->file_bytes, PROT_READ, MAP_SHARED, fd, 0);
        if (r->probe == MAP_FAILED) r->probe = NULL;
    }
    if (fd >= 0) close(fd);
    r->majflt0 = major_faults();
    r->resident0 = resident(r);
    *h = r;
    return 0;
}

int idb_lmdb_get(void *h, const idb_id *id, idb_row *row, int *found, idb_err *err)
{
    lm_reader *r = h;
    *found = 0;
    if (id->len != r->key_bytes) return 0;       /* no key of another width is stored */
    int rc = mdb_txn_renew(r->txn);
    if (rc) return idb_fail(err, IDB_EIO, "lmdb: mdb_txn_renew: %s", mdb_strerror(rc));
    MDB_val k = { (size_t)id->len, (void *)id->b }, v;
    rc = mdb_get(r->txn, r->dbi, &k, &v);
    if (rc == 0) {
        rc = idb_lmdb_row(v.mv_data, v.mv_size, id, r->row_bytes, r->check, row, err);
        *found = !rc;
    } else if (rc == MDB_NOTFOUND) {
        rc = 0;
    } else {
        rc = idb_fail(err, IDB_EIO, "lmdb: mdb_get: %s", mdb_strerror(rc));
    }
    mdb_txn_reset(r->txn);
    return rc;
}

int idb_lmdb_read_counts(void *h, int64_t *misses, int64_t *read_pages, idb_err *err)
{
    (void)err;
    lm_reader *r = h;
    int64_t f = major_faults(), res = resident(r);
    long os = sysconf(_SC_PAGESIZE);
    MDB_stat ms;
    unsigned psize = mdb_env_stat(r->env, &ms) == 0 ? ms.ms_psize : (unsigned)os;
    *misses = f < 0 || r->majflt0 < 0 ? -1 : f - r->majflt0;
    *read_pages = res < 0 || r->resident0 < 0 ? -1
                : (res - r->resident0) * os / (int64_t)psize;
    return 0;
}

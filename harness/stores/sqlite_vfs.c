/* sqlite_vfs.c — the counting SQLite VFS shim (see sqlite_vfs.h).
 *
 * The pattern of SQLite's own shims (ext/misc/vfstrace.c, src/test_multiplex.c): our
 * sqlite3_file is a small header followed, in the same allocation of szOsFile bytes, by the
 * real VFS's file; every method calls the real one. Only xRead and xWrite do more: they
 * count. Each open file carries its own sqlite3_io_methods, shaped like the real file's
 * (same iVersion, NULL where the real one is NULL), because SQLite decides from the table
 * what the file can do (WAL needs iVersion >= 2 and xShmMap).
 */
#include "sqlite_vfs.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VFS_NAME_MAX 48            /* "idbench-count-" and a pointer in hex */
#define VFS_VERSION_MAX 3          /* the sqlite3_vfs and sqlite3_io_methods versions we know */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

struct idb_vfs {
    sqlite3_vfs vfs;               /* what SQLite sees; vfs.pAppData = this */
    sqlite3_vfs *root;             /* the default VFS underneath */
    int page_bytes;
    idb_vfs_counts counts;
    char name[VFS_NAME_MAX];
};

/* One open file: ours, then (at ALIGN8(sizeof(vf_file))) the root VFS's. */
typedef struct vf_file {
    sqlite3_file base;             /* first: SQLite's view; base.pMethods = &methods */
    sqlite3_io_methods methods;    /* this file's table, shaped like the real file's */
    idb_vfs *owner;
    idb_vfs_kind kind;
    sqlite3_file *real;
} vf_file;

/* The real file under f. */
static sqlite3_file *real_of(sqlite3_file *f) { return ((vf_file *)f)->real; }

/* Count one call that moved amt bytes (if it returned SQLITE_OK). Atomic: the clients of
 * one store (store.h, version 2) share its VFS, each connection from its own thread. */
static void count_io(idb_vfs_io *io, int rc, int amt, int page_bytes)
{
    __atomic_fetch_add(&io->calls, 1, __ATOMIC_RELAXED);
    if (rc != SQLITE_OK) return;
    __atomic_fetch_add(&io->bytes, amt, __ATOMIC_RELAXED);
    if (amt == page_bytes) __atomic_fetch_add(&io->pages, 1, __ATOMIC_RELAXED);
}

/* --- the file methods: xRead and xWrite count, the rest pass through --- */

static int vf_close(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xClose(r);
}

static int vf_read(sqlite3_file *f, void *buf, int amt, sqlite3_int64 off)
{
    vf_file *p = (vf_file *)f;
    int rc = p->real->pMethods->xRead(p->real, buf, amt, off);
    count_io(&p->owner->counts.read[p->kind], rc, amt, p->owner->page_bytes);
    return rc;
}

static int vf_write(sqlite3_file *f, const void *buf, int amt, sqlite3_int64 off)
{
    vf_file *p = (vf_file *)f;
    int rc = p->real->pMethods->xWrite(p->real, buf, amt, off);
    count_io(&p->owner->counts.write[p->kind], rc, amt, p->owner->page_bytes);
    return rc;
}

static int vf_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xTruncate(r, size);
}

static int vf_sync(sqlite3_file *f, int flags)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xSync(r, flags);
}

static int vf_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xFileSize(r, size);
}

static int vf_lock(sqlite3_file *f, int level)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xLock(r, level);
}

static int vf_unlock(sqlite3_file *f, int level)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xUnlock(r, level);
}

static int vf_check_reserved(sqlite3_file *f, int *out)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xCheckReservedLock(r, out);
}

static int vf_file_control(sqlite3_file *f, int op, void *arg)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xFileControl(r, op, arg);
}

static int vf_sector_size(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xSectorSize(r);
}

static int vf_device_chars(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xDeviceCharacteristics(r);
}

static int vf_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **pp)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xShmMap(r, region, size, extend, pp);
}

static int vf_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xShmLock(r, offset, n, flags);
}

static void vf_shm_barrier(sqlite3_file *f)
{
    sqlite3_file *r = real_of(f);
    r->pMethods->xShmBarrier(r);
}

static int vf_shm_unmap(sqlite3_file *f, int delete_flag)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xShmUnmap(r, delete_flag);
}

static int vf_fetch(sqlite3_file *f, sqlite3_int64 off, int amt, void **pp)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xFetch(r, off, amt, pp);
}

static int vf_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    sqlite3_file *r = real_of(f);
    return r->pMethods->xUnfetch(r, off, p);
}

/* Every method; shape_methods() trims a copy to what the real file has. */
static const sqlite3_io_methods vf_methods = {
    .iVersion = VFS_VERSION_MAX,
    .xClose = vf_close, .xRead = vf_read, .xWrite = vf_write, .xTruncate = vf_truncate,
    .xSync = vf_sync, .xFileSize = vf_file_size, .xLock = vf_lock, .xUnlock = vf_unlock,
    .xCheckReservedLock = vf_check_reserved, .xFileControl = vf_file_control,
    .xSectorSize = vf_sector_size, .xDeviceCharacteristics = vf_device_chars,
    .xShmMap = vf_shm_map, .xShmLock = vf_shm_lock, .xShmBarrier = vf_shm_barrier,
    .xShmUnmap = vf_shm_unmap,
    .xFetch = vf_fetch, .xUnfetch = vf_unfetch,
};

/* m = vf_methods with the real table r's version (at most ours) and NULL wherever r has
 * no method, so that SQLite sees the same capabilities through the shim. */
static void shape_methods(sqlite3_io_methods *m, const sqlite3_io_methods *r)
{
    *m = vf_methods;
    if (r->iVersion < m->iVersion) m->iVersion = r->iVersion;
    int v2 = m->iVersion >= 2, v3 = m->iVersion >= 3;
    if (!v2 || !r->xShmMap) m->xShmMap = NULL;
    if (!v2 || !r->xShmLock) m->xShmLock = NULL;
    if (!v2 || !r->xShmBarrier) m->xShmBarrier = NULL;
    if (!v2 || !r->xShmUnmap) m->xShmUnmap = NULL;
    if (!v3 || !r->xFetch) m->xFetch = NULL;
    if (!v3 || !r->xUnfetch) m->xUnfetch = NULL;
}

/* --- the VFS methods --- */

/* Which counters a file opened with flags uses. */
static idb_vfs_kind kind_of(int flags)
{
    static const struct { int flag; idb_vfs_kind kind; } kinds[] = {
        { SQLITE_OPEN_MAIN_DB, IDB_VFS_DB },
        { SQLITE_OPEN_WAL, IDB_VFS_WAL },
        { SQLITE_OPEN_MAIN_JOURNAL, IDB_VFS_JOURNAL },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (flags & kinds[i].flag) return kinds[i].kind;
    return IDB_VFS_OTHER;
}

/* Open through the root VFS into the bytes after ours. As SQLite requires, our pMethods
 * is set exactly when the real file's is (then SQLite calls xClose even after an error). */
static int vf_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out)
{
    idb_vfs *v = vfs->pAppData;
    vf_file *p = (vf_file *)f;
    memset(f, 0, (size_t)vfs->szOsFile);
    p->owner = v;
    p->kind = kind_of(flags);
    p->real = (sqlite3_file *)((char *)f + ALIGN8(sizeof(vf_file)));
    int rc = v->root->xOpen(v->root, name, p->real, flags, out);
    if (p->real->pMethods) {
        shape_methods(&p->methods, p->real->pMethods);
        p->base.pMethods = &p->methods;
    }
    return rc;
}

/* The root VFS under vfs. */
static sqlite3_vfs *root_of(sqlite3_vfs *vfs) { return ((idb_vfs *)vfs->pAppData)->root; }

static int vf_delete(sqlite3_vfs *vfs, const char *name, int sync_dir)
{
    return root_of(vfs)->xDelete(root_of(vfs), name, sync_dir);
}

static int vf_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    return root_of(vfs)->xAccess(root_of(vfs), name, flags, out);
}

static int vf_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
    return root_of(vfs)->xFullPathname(root_of(vfs), name, n, out);
}

static void *vf_dl_open(sqlite3_vfs *vfs, const char *name)
{
    return root_of(vfs)->xDlOpen(root_of(vfs), name);
}

static void vf_dl_error(sqlite3_vfs *vfs, int n, char *msg)
{
    root_of(vfs)->xDlError(root_of(vfs), n, msg);
}

static void (*vf_dl_sym(sqlite3_vfs *vfs, void *lib, const char *sym))(void)
{
    return root_of(vfs)->xDlSym(root_of(vfs), lib, sym);
}

static void vf_dl_close(sqlite3_vfs *vfs, void *lib)
{
    root_of(vfs)->xDlClose(root_of(vfs), lib);
}

static int vf_randomness(sqlite3_vfs *vfs, int n, char *out)
{
    return root_of(vfs)->xRandomness(root_of(vfs), n, out);
}

static int vf_sleep(sqlite3_vfs *vfs, int us)
{
    return root_of(vfs)->xSleep(root_of(vfs), us);
}

static int vf_current_time(sqlite3_vfs *vfs, double *out)
{
    return root_of(vfs)->xCurrentTime(root_of(vfs), out);
}

static int vf_get_last_error(sqlite3_vfs *vfs, int n, char *out)
{
    return root_of(vfs)->xGetLastError(root_of(vfs), n, out);
}

static int vf_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    return root_of(vfs)->xCurrentTimeInt64(root_of(vfs), out);
}

static int vf_set_syscall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr fn)
{
    return root_of(vfs)->xSetSystemCall(root_of(vfs), name, fn);
}

static sqlite3_syscall_ptr vf_get_syscall(sqlite3_vfs *vfs, const char *name)
{
    return root_of(vfs)->xGetSystemCall(root_of(vfs), name);
}

static const char *vf_next_syscall(sqlite3_vfs *vfs, const char *name)
{
    return root_of(vfs)->xNextSystemCall(root_of(vfs), name);
}

/* Every VFS method; make_vfs() trims a copy to what the root VFS has. */
static const sqlite3_vfs vf_vfs = {
    .iVersion = VFS_VERSION_MAX,
    .xOpen = vf_open, .xDelete = vf_delete, .xAccess = vf_access,
    .xFullPathname = vf_full_pathname, .xDlOpen = vf_dl_open, .xDlError = vf_dl_error,
    .xDlSym = vf_dl_sym, .xDlClose = vf_dl_close, .xRandomness = vf_randomness,
    .xSleep = vf_sleep, .xCurrentTime = vf_current_time, .xGetLastError = vf_get_last_error,
    .xCurrentTimeInt64 = vf_current_time64,
    .xSetSystemCall = vf_set_syscall, .xGetSystemCall = vf_get_syscall,
    .xNextSystemCall = vf_next_syscall,
};

/* v->vfs = vf_vfs shaped like root (its version at most ours, NULL where root has none),
 * with room for our file header before root's file. */
static void make_vfs(idb_vfs *v, sqlite3_vfs *root)
{
    sqlite3_vfs *m = &v->vfs;
    *m = vf_vfs;
    if (root->iVersion < m->iVersion) m->iVersion = root->iVersion;
    m->szOsFile = (int)(ALIGN8(sizeof(vf_file)) + (size_t)root->szOsFile);
    m->mxPathname = root->mxPathname;
    m->zName = v->name;
    m->pAppData = v;
    if (!root->xDlOpen) m->xDlOpen = NULL;
    if (!root->xDlError) m->xDlError = NULL;
    if (!root->xDlSym) m->xDlSym = NULL;
    if (!root->xDlClose) m->xDlClose = NULL;
    if (!root->xGetLastError) m->xGetLastError = NULL;
    int v2 = m->iVersion >= 2, v3 = m->iVersion >= 3;
    if (!v2 || !root->xCurrentTimeInt64) m->xCurrentTimeInt64 = NULL;
    if (!v3 || !root->xSetSystemCall) m->xSetSystemCall = NULL;
    if (!v3 || !root->xGetSystemCall) m->xGetSystemCall = NULL;
    if (!v3 || !root->xNextSystemCall) m->xNextSystemCall = NULL;
}

int idb_vfs_create(int page_bytes, idb_vfs **out, idb_err *err)
{
    sqlite3_vfs *root = sqlite3_vfs_find(NULL);
    if (!root) return idb_fail(err, IDB_EIO, "sqlite: no default VFS to count the I/O of");
    idb_vfs *v = calloc(1, sizeof *v);
    if (!v) return idb_fail(err, IDB_ENOMEM, "out of memory");
    v->root = root;
    v->page_bytes = page_bytes;
    snprintf(v->name, sizeof v->name, "idbench-count-%p", (void *)v);   /* unique while alive */
    make_vfs(v, root);
    int rc = sqlite3_vfs_register(&v->vfs, 0);
    if (rc != SQLITE_OK) {
        free(v);
        return idb_fail(err, IDB_EIO, "sqlite: registering the counting VFS: %s",
                        sqlite3_errstr(rc));
    }
    *out = v;
    return 0;
}

const char *idb_vfs_name(const idb_vfs *v) { return v->name; }

void idb_vfs_get(const idb_vfs *v, idb_vfs_counts *out) { *out = v->counts; }

void idb_vfs_destroy(idb_vfs *v)
{
    if (!v) return;
    sqlite3_vfs_unregister(&v->vfs);
    free(v);
}

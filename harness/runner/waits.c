/* waits.c — the wait columns from a store's measured waits (waits.h). */
#include "waits.h"

#define COLUMN(cls, what) [cls] = "wait_share_" #what,
const char *const idb_wait_columns[IDB_WAIT_CLASSES] = { IDB_WAIT_COLUMN_TABLE(COLUMN) };
#undef COLUMN

void idb_waits_add(idb_store_waits *sum, const idb_store_waits *w, int k)
{
    if (k == 0) {
        *sum = *w;
        return;
    }
    if (sum->kind != w->kind) {
        *sum = (idb_store_waits){ .kind = IDB_WAITS_NONE };
        return;
    }
    sum->samples += w->samples;
    for (int c = 0; c < IDB_WAIT_CLASSES; c++)
        sum->v[c] = sum->v[c] < 0 || w->v[c] < 0 ? -1 : sum->v[c] + w->v[c];
}

void idb_waits_figures(const idb_store_waits *w, double client_ns, int64_t ids,
                       idb_wait_figures *f)
{
    f->share = f->ns_per_order = f->none = -1;
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) f->by[c] = -1;
    int samples = w->kind == IDB_WAITS_SAMPLES;
    double all = samples ? (double)w->samples : client_ns;
    if ((w->kind != IDB_WAITS_SAMPLES && w->kind != IDB_WAITS_NS) || all <= 0 || ids <= 0)
        return;
    double lock = 0, any = 0, lock_v = 0;
    for (int c = 0; c < IDB_WAIT_CLASSES; c++) {
        if (w->v[c] < 0) continue;
        f->by[c] = (double)w->v[c] / all;
        any += f->by[c];
        if (c < IDB_WAIT_LOCK_CLASSES) {
            lock += f->by[c];
            lock_v += (double)w->v[c];
        }
    }
    f->share = lock;
    f->none = 1 - any;
    if (f->none < 0 && f->none > -1e-9) f->none = 0;     /* rounding only; a larger excess
                                                           * (ns measured past the writers'
                                                           * time) is shown, not hidden */
    f->ns_per_order = samples ? lock * client_ns / (double)ids : lock_v / (double)ids;
}

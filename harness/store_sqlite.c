/* PLACEHOLDER: being written; replaced entirely by the real store. */
#include <stdlib.h>
#include "store.h"
static int ph_open(const char *d, const idb_opts *o, int k, void **h, idb_err *e) { (void)d; (void)o; (void)k; (void)h; return idb_fail(e, IDB_EINPUT, "not yet"); }
const idb_store idb_store_sqlite = { .version = 1, .name = "sqlite", .summary = "placeholder", .open = ph_open };

/* PLACEHOLDER: being written; replaced entirely by the real strategy. */
#include <stdlib.h>
#include "strategy.h"
static int ph_create(const idb_opts *o, idb_clock *c, void **i, idb_err *e) { (void)o; (void)c; (void)i; return idb_fail(e, IDB_EINPUT, "not yet"); }
static int ph_next(void *i, idb_id *id, idb_err *e) { (void)i; (void)id; return idb_fail(e, IDB_EINPUT, "not yet"); }
static int ph_decode(const idb_opts *o, const idb_id *id, idb_emit_fn f, void *c, idb_err *e) { (void)o; (void)id; (void)f; (void)c; return idb_fail(e, IDB_EINPUT, "not yet"); }
const idb_strategy idb_strategy_snowflake = { .version = 1, .name = "snowflake", .summary = "placeholder", .bits = 64,
  .create = ph_create, .next = ph_next, .destroy = free, .format = idb_text_u64_format, .parse = idb_text_u64_parse, .decode = ph_decode };

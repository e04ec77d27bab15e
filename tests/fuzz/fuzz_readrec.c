/* fuzz_readrec.c — libFuzzer target: the insert record reader (harness/runner/readrec.c),
 * which `idbench read` points at a file in a directory the user names.
 *
 * Input: the bytes of D/insert-sqlite.rec. Checked: the loader either refuses it with
 * IDB_EINPUT (or IDB_ENOMEM) and leaves the record empty, or accepts a record whose header
 * is in range (a strategy and store name, the store the one asked for, key width 1 ..
 * IDB_ID_MAX, 1 .. 1024 shards, every -s option without a newline) and whose entries fill
 * the rest of the file exactly, every one naming a shard below the record's shards; each
 * entry then reads back with an ID of the record's width. A record the loader accepts also
 * plans lookups (idb_read_plan, uniform with a miss share) without fault.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "read.h"
#include "readrec.h"

#define PLAN_LOOKUPS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[4096], path[4200];
    fuzz_tmp_path("d", dir, sizeof dir);
    fuzz_tmp_path("d/insert-sqlite.rec", path, sizeof path);
    (void)mkdir(dir, 0700);                      /* EEXIST after the first input */
    fuzz_write_file(path, data, size);
    idb_readrec rec;
    idb_err err = { 0 };
    int rc = idb_readrec_load(dir, "sqlite", &rec, &err);
    if (rc) {
        FUZZ_CHECK(rc == IDB_EINPUT || rc == IDB_ENOMEM, "code %d: %s", rc, err.msg);
        FUZZ_CHECK(rec.data == NULL && rec.rows == 0, "a refused record kept entries");
        return 0;
    }
    FUZZ_CHECK(rec.strategy[0] && strcmp(rec.store, "sqlite") == 0, "names '%s' '%s'",
               rec.strategy, rec.store);
    FUZZ_CHECK(rec.width >= 1 && rec.width <= IDB_ID_MAX, "width %d", rec.width);
    FUZZ_CHECK(rec.shards >= 1 && rec.shards <= 1024, "shards %d", rec.shards);
    FUZZ_CHECK(rec.entry == 28 + (size_t)rec.width, "entry %zu", rec.entry);
    FUZZ_CHECK((size_t)rec.rows * rec.entry <= size, "%lld rows in %zu bytes",
               (long long)rec.rows, size);
    for (int i = 0; i < rec.nkv; i++) FUZZ_CHECK(!strchr(rec.kv[i], '\n'), "option %d", i);
    for (int64_t i = 0; i < rec.rows; i++) {
        idb_row row;
        int shard;
        idb_readrec_get(&rec, i, &row, &shard);
        FUZZ_CHECK(shard >= 0 && shard < rec.shards, "entry %lld: shard %d", (long long)i,
                   shard);
        FUZZ_CHECK(row.id.len == rec.width, "entry %lld: width %d", (long long)i, row.id.len);
    }
    if (rec.rows > 0 && rec.width >= 2) {        /* 1-byte IDs may leave no ID to miss */
        idb_read_lookup plan[PLAN_LOOKUPS];
        idb_read_config cfg = { .lookups = PLAN_LOOKUPS, .pattern = IDB_READ_MIXED,
                                .mixed_pct = 50, .recent_pct = 5, .miss_share = 0.25 };
        rc = idb_read_plan(&rec, &cfg, plan, &err);
        FUZZ_CHECK(rc == 0 || rc == IDB_EIO, "plan: code %d: %s", rc, err.msg);
        for (int i = 0; !rc && i < PLAN_LOOKUPS; i++)
            FUZZ_CHECK(plan[i].index < rec.rows, "lookup %d: index %lld", i,
                       (long long)plan[i].index);
    }
    idb_readrec_free(&rec);
    return 0;
}

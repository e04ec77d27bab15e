/* device.h — the device model: modelled time per page read from / written to a store's
 * files, charged as accounted time (never slept) and reported apart from measured time.
 *
 * A store's page reads and writes (idb_store_stats read_pages and pages_written: SQLite's
 * through its counting VFS, pagesim's from its LRU pool) are charged
 *     modelled_device_s = (read_pages * read_us + pages_written * write_us) / 1e6
 * with read_us / write_us the common store options, or a preset `device=nvme|ssd|hdd` whose
 * figures come from cited device specifications (device.c; docs/scale.md), never fitted to
 * a result. What the model leaves out (OS cache, read-ahead, write-back, queue depth, group
 * commit) is in docs/scale.md.
 */
#ifndef IDB_DEVICE_H
#define IDB_DEVICE_H

#include <stdint.h>

#include "err.h"

typedef struct idb_device {
    const char *name;         /* the preset, "none", or "custom" (read_us / write_us) */
    double read_us, write_us; /* modelled microseconds per page */
} idb_device;

/* The device of the store options kv[0..nkv) ("key=value"; the options other than device,
 * read_us and write_us are ignored): a preset, or read_us / write_us, or none (both 0). A
 * preset together with read_us or write_us is refused (the preset sets both). Returns 0,
 * or IDB_EINPUT with err (an unknown preset, a value out of range). */
int idb_device_parse(const char *const *kv, int nkv, idb_device *d, idb_err *err);

/* The preset called name (nvme, ssd, hdd) into *d. Returns 0, or -1 for another name. */
int idb_device_preset(const char *name, idb_device *d);

/* 1 when d charges anything (read_us or write_us above 0). */
int idb_device_on(const idb_device *d);

/* The modelled seconds of reads page reads and writes page writes, or -1 when d is off or
 * a count it charges is unknown (< 0). */
double idb_device_seconds(const idb_device *d, int64_t reads, int64_t writes);

#endif

/* device.c — the device model's presets and its one formula (see device.h).
 *
 * The presets, per 4 KiB-page random access at queue depth 1 (typical figures):
 *   nvme  Intel SSD DC P3700 product specification: latency (typ.) read 20 us, write 20 us.
 *   ssd   Intel SSD DC S3700 product specification: latency (average sequential, typ.)
 *         read 50 us, write 65 us. The drives of Vondra's 2019 SSD test.
 *   hdd   7,200 rpm: HGST Ultrastar 7K4000 specification, average seek (typical) 8.2 ms
 *         read and write, plus the average rotational latency of 7,200 rpm, half a turn:
 *         4.16 ms (Hitachi 7K320 specification, table 8: 4.2 ms): 12,360 us each.
 * Sources and what the model leaves out: docs/scale.md.
 */
#include "device.h"

#include <string.h>

#include "options.h"
#include "store.h"

#define US_PER_S 1e6

/* The presets, by name (the choices of the common store option device, after none). */
static const idb_device presets[] = {
    { "nvme", 20, 20 },
    { "ssd", 50, 65 },
    { "hdd", 8200 + 4160, 8200 + 4160 },
};

/* 1 if kv ("key=value") sets the option name. */
static int sets(const char *kv, const char *name)
{
    size_t n = strcspn(kv, "=");
    return strlen(name) == n && strncmp(kv, name, n) == 0;
}

int idb_device_parse(const char *const *kv, int nkv, idb_device *d, idb_err *err)
{
    static const char *const names[] = { "device", "read_us", "write_us" };
    const char *mine[IDB_OPTS_MAX];
    int n = 0, figures = 0;
    for (int i = 0; i < nkv; i++)
        for (size_t k = 0; k < sizeof names / sizeof *names; k++)
            if (sets(kv[i], names[k]) && n < IDB_OPTS_MAX) {
                mine[n++] = kv[i];
                figures += k > 0;
            }
    idb_opts o;
    int rc = idb_opts_parse(&o, idb_store_common_options, mine, n, "store", err);
    if (rc) return rc;
    const char *preset = idb_opts_str(&o, "device");
    *d = (idb_device){ "none", idb_opts_double(&o, "read_us"), idb_opts_double(&o, "write_us") };
    if (idb_device_on(d)) d->name = "custom";
    for (size_t k = 0; k < sizeof presets / sizeof *presets; k++) {
        if (strcmp(preset, presets[k].name) != 0) continue;
        if (figures)
            return idb_fail(err, IDB_EINPUT, "store: device=%s sets read_us and write_us; "
                            "give the preset or the figures, not both", preset);
        *d = presets[k];
    }
    return 0;
}

int idb_device_preset(const char *name, idb_device *d)
{
    for (size_t k = 0; k < sizeof presets / sizeof *presets; k++)
        if (strcmp(name, presets[k].name) == 0) {
            *d = presets[k];
            return 0;
        }
    return -1;
}

int idb_device_on(const idb_device *d)
{
    return d->read_us > 0 || d->write_us > 0;
}

double idb_device_seconds(const idb_device *d, int64_t reads, int64_t writes)
{
    if (!idb_device_on(d) || (d->read_us > 0 && reads < 0) || (d->write_us > 0 && writes < 0))
        return -1;
    double r = d->read_us > 0 ? (double)reads * d->read_us : 0;
    double w = d->write_us > 0 ? (double)writes * d->write_us : 0;
    return (r + w) / US_PER_S;
}

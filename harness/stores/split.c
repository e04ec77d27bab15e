/* split.c — split points of a key space and the load figures of a split (split.h). */
#include <string.h>

#include "split.h"

#define J_BITS 5                       /* j < IDB_SPLIT_PARTS_MAX = 16 < 2^J_BITS */

/* parts and width within bounds: 0 or IDB_EINPUT. */
static int check_shape(int parts, int width, idb_err *err)
{
    if (parts < 2 || parts > IDB_SPLIT_PARTS_MAX)
        return idb_fail(err, IDB_EINPUT, "split: %d parts: expected 2 to %d", parts,
                        IDB_SPLIT_PARTS_MAX);
    if (width < 1 || width > IDB_ID_MAX)
        return idb_fail(err, IDB_EINPUT, "split: %d-byte keys: expected 1 to %d", width,
                        IDB_ID_MAX);
    return 0;
}

/* floor(j * 2^bits / parts) as a width-byte big-endian key into out: long division one
 * bit at a time, from the numerator's top bit (bit bits + J_BITS - 1) down. */
static void slice_point(int j, int parts, int bits, int width, idb_id *out)
{
    memset(out, 0, sizeof *out);
    out->len = (uint8_t)width;
    unsigned rem = 0;
    for (int b = bits + J_BITS - 1; b >= 0; b--) {
        unsigned bit = b >= bits ? ((unsigned)j >> (b - bits)) & 1u : 0u;
        rem = 2 * rem + bit;
        if (rem < (unsigned)parts) continue;
        rem -= (unsigned)parts;
        /* quotient bit b: below 2^bits <= 2^(8 width), so it lands inside the key */
        out->b[width - 1 - b / 8] |= (uint8_t)(1u << (b % 8));
    }
}

int idb_split_check(int parts, int width, const idb_id *points, idb_err *err)
{
    int rc = check_shape(parts, width, err);
    for (int j = 0; !rc && j < parts - 1; j++) {
        if (points[j].len != width)
            return idb_fail(err, IDB_EINPUT, "split: point %d is %d bytes, not %d", j + 1,
                            points[j].len, width);
        if (j > 0 && memcmp(points[j - 1].b, points[j].b, (size_t)width) >= 0)
            return idb_fail(err, IDB_EINPUT, "split: point %d is not above point %d (the "
                            "parts would not be ranges)", j + 1, j);
    }
    return rc;
}

int idb_split_space(int parts, int width, int space_bits, idb_id *out, idb_err *err)
{
    int rc = check_shape(parts, width, err);
    if (rc) return rc;
    if (space_bits < 1 || space_bits > 8 * width)
        return idb_fail(err, IDB_EINPUT, "split: a %d-bit space in %d-byte keys: expected 1 "
                        "to %d bits", space_bits, width, 8 * width);
    for (int j = 1; j < parts; j++) slice_point(j, parts, space_bits, width, &out[j - 1]);
    return idb_split_check(parts, width, out, err);
}

int idb_split_sample(int parts, int width, const uint8_t *sorted, int64_t n, idb_id *out,
                     idb_err *err)
{
    int rc = check_shape(parts, width, err);
    if (rc) return rc;
    if (n < parts)
        return idb_fail(err, IDB_EINPUT, "split: a sample of %lld keys cannot be cut into %d "
                        "parts", (long long)n, parts);
    for (int j = 1; j < parts; j++) {
        int64_t at = (int64_t)((__int128)j * n / parts);
        out[j - 1].len = (uint8_t)width;
        memcpy(out[j - 1].b, sorted + (size_t)at * (size_t)width, (size_t)width);
    }
    return idb_split_check(parts, width, out, err);
}

int idb_split_part(int parts, int width, const idb_id *points, const uint8_t *key)
{
    int lo = 0, hi = parts - 1;        /* the answer: how many points are <= key */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (memcmp(points[mid].b, key, (size_t)width) <= 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

double idb_split_window_max(const uint8_t *part, int64_t n, int parts, int64_t window)
{
    int64_t count[IDB_SPLIT_PARTS_MAX] = { 0 }, best = 0;
    if (window < 1 || parts < 1 || parts > IDB_SPLIT_PARTS_MAX) return -1;
    if (n == 0) return 0;
    int64_t w = n < window ? n : window;
    for (int64_t i = 0; i < n; i++) {
        if (part[i] >= parts) return -1;
        count[part[i]]++;
        if (i >= w) count[part[i - w]]--;             /* the row that left the window */
        if (i < w - 1) continue;                      /* the first window is not full yet */
        for (int j = 0; j < parts; j++)
            if (count[j] > best) best = count[j];
    }
    return (double)best / (double)w;
}

double idb_split_shares(const int64_t *count, int parts, double *share)
{
    int64_t n = 0;
    double hot = 0;
    for (int j = 0; j < parts; j++) n += count[j];
    for (int j = 0; j < parts; j++) {
        share[j] = n ? (double)count[j] / (double)n : 0;
        if (share[j] > hot) hot = share[j];
    }
    return hot;
}

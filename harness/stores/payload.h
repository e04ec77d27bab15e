/* payload.h — the deterministic payload bytes a store adds to each row: derived from the
 * key (FNV-1a, then a splitmix64 stream), so rows read back can be checked. Shared by the
 * stores that keep a payload; cheap, because it runs inside the timed insert. */
#ifndef IDB_PAYLOAD_H
#define IDB_PAYLOAD_H

#include <stdint.h>
#include <string.h>

#include "id.h"

/* Fill p[0..n) with the payload of id. */
static inline void idb_payload_fill(uint8_t *p, int n, const idb_id *id)
{
    uint64_t x = 0xcbf29ce484222325u;
    for (int i = 0; i < id->len; i++) x = (x ^ id->b[i]) * 0x100000001b3u;
    for (int i = 0; i < n; i += 8) {
        uint64_t z = (x += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        memcpy(p + i, &z, n - i < 8 ? (size_t)(n - i) : 8);   /* host byte order */
    }
}

/* The ID a row's payload derives from when the store assigns its key (autoinc: the key is
 * not known before the insert): the order's own identity, shop and display number, as one
 * 8-byte big-endian number (shop << 32 | display_no), into *out. */
static inline void idb_payload_order_key(uint32_t shop, uint32_t display_no, idb_id *out)
{
    idb_id_set_u64(out, (uint64_t)shop << 32 | display_no);
}

#endif

/* id.c — the hex form of IDs and byte strings (see id.h), for messages and decode(). */
#include "id.h"

static const char hex_digits[] = "0123456789abcdef";

char *idb_hex(const uint8_t *p, size_t n, char *buf)
{
    for (size_t i = 0; i < n; i++) {
        buf[2 * i] = hex_digits[p[i] >> 4];
        buf[2 * i + 1] = hex_digits[p[i] & 15];
    }
    buf[2 * n] = 0;
    return buf;
}

const char *idb_id_hex(const idb_id *id, char *buf)
{
    return idb_hex(id->b, id->len, buf);
}

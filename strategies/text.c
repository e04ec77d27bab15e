/* text.c — the shared text forms of IDs: decimal, UUID, hex (see strategy.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "strategy.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char hexdig[] = "0123456789abcdef";

const char *idb_text_shown(const char *text, char *buf)
{
    size_t j = 0;
    for (size_t i = 0; text[i]; i++) {
        unsigned char c = (unsigned char)text[i];
        if (i == 60) { memcpy(buf + j, "...", 3); j += 3; break; }
        if (c >= 0x20 && c < 0x7f) { buf[j++] = (char)c; continue; }
        buf[j++] = '\\';
        buf[j++] = 'x';
        buf[j++] = hexdig[c >> 4];
        buf[j++] = hexdig[c & 15];
    }
    buf[j] = 0;
    return buf;
}

void idb_text_u64_format(const idb_id *id, char *buf)
{
    snprintf(buf, IDB_TEXT_MAX, "%llu", (unsigned long long)idb_id_u64(id));
}

int idb_text_u64_parse(const char *text, idb_id *id, idb_err *err)
{
    char sb[IDB_SHOWN_MAX];
    size_t n = strlen(text);
    if (n == 0) return idb_fail(err, IDB_EINPUT, "empty ID");
    if (n > 20) return idb_fail(err, IDB_EINPUT, "'%s' is too long for a 64-bit ID",
                                idb_text_shown(text, sb));
    if (n > 1 && text[0] == '0')
        return idb_fail(err, IDB_EINPUT, "'%s' has a leading zero", idb_text_shown(text, sb));
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] < '0' || text[i] > '9')
            return idb_fail(err, IDB_EINPUT, "'%s' is not a decimal number",
                            idb_text_shown(text, sb));
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return idb_fail(err, IDB_EINPUT, "'%s' does not fit in 64 bits",
                            idb_text_shown(text, sb));
        v = v * 10 + d;
    }
    idb_id_set_u64(id, v);
    return 0;
}

void idb_text_uuid_format(const idb_id *id, char *buf)
{
    char *p = buf;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) *p++ = '-';
        *p++ = hexdig[id->b[i] >> 4];
        *p++ = hexdig[id->b[i] & 15];
    }
    *p = 0;
}

int idb_text_uuid_parse(const char *text, idb_id *id, idb_err *err)
{
    char sb[IDB_SHOWN_MAX];
    if (strlen(text) != 36)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a UUID: expected 36 characters (8-4-4-4-12)",
                        idb_text_shown(text, sb));
    int j = 0;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-')
                return idb_fail(err, IDB_EINPUT, "'%s' is not a UUID: expected '-' at offset %d",
                                idb_text_shown(text, sb), i);
            continue;
        }
        int v = hexval(text[i]);
        if (v < 0)
            return idb_fail(err, IDB_EINPUT, "'%s' is not a UUID: bad hex digit at offset %d",
                            idb_text_shown(text, sb), i);
        if (j % 2 == 0) id->b[j / 2] = (uint8_t)(v << 4);
        else id->b[j / 2] |= (uint8_t)v;
        j++;
    }
    id->len = 16;
    return 0;
}

int idb_uuid_check(const idb_id *id, const char *text, int version, idb_err *err)
{
    char hex[IDB_TEXT_MAX];
    if (id->len != 16)
        return idb_fail(err, IDB_EINPUT, "a UUIDv%d has 16 bytes, not %d", version, id->len);
    if (!text) { idb_text_uuid_format(id, hex); text = hex; }
    if ((id->b[8] & 0xC0) != 0x80)
        return idb_fail(err, IDB_EINPUT,
                        "'%s' is not an RFC 9562 UUID: variant bits are %d%d, expected 10",
                        text, id->b[8] >> 7, (id->b[8] >> 6) & 1);
    if (id->b[6] >> 4 != version)
        return idb_fail(err, IDB_EINPUT, "'%s' is not a UUIDv%d: version is %d, expected %d",
                        text, version, id->b[6] >> 4, version);
    return 0;
}

void idb_text_hex_format(const idb_id *id, char *buf)
{
    idb_id_hex(id, buf);
}

int idb_text_hex_parse(const char *text, int bytes, idb_id *id, idb_err *err)
{
    char sb[IDB_SHOWN_MAX];
    if (strlen(text) != (size_t)(2 * bytes))
        return idb_fail(err, IDB_EINPUT, "'%s': expected %d hex digits", idb_text_shown(text, sb),
                        2 * bytes);
    for (int i = 0; i < bytes; i++) {
        int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return idb_fail(err, IDB_EINPUT, "'%s': bad hex digit at offset %d",
                            idb_text_shown(text, sb), hi < 0 ? 2 * i : 2 * i + 1);
        id->b[i] = (uint8_t)(hi << 4 | lo);
    }
    id->len = (uint8_t)bytes;
    return 0;
}

void idb_emit_int(idb_emit_fn emit, void *ctx, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    emit(ctx, key, buf);
}

void idb_emit_uint(idb_emit_fn emit, void *ctx, const char *key, uint64_t v)
{
    char buf[sizeof "18446744073709551615"];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    emit(ctx, key, buf);
}

void idb_emit_hex(idb_emit_fn emit, void *ctx, const char *key, const uint8_t *p, int n)
{
    char buf[IDB_ID_HEX_MAX];
    emit(ctx, key, idb_hex(p, (size_t)n, buf));
}

void idb_emit_time(idb_emit_fn emit, void *ctx, const char *key, int64_t ms, int whole_seconds)
{
    time_t sec = (time_t)(ms / 1000);
    struct tm tm;
    char when[64];
    gmtime_r(&sec, &tm);
    size_t n = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    if (whole_seconds) snprintf(when + n, sizeof when - n, "Z");
    else snprintf(when + n, sizeof when - n, ".%03dZ", (int)(ms % 1000));
    emit(ctx, key, when);
}

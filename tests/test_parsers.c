/* test_parsers.c — the strict text parsers, through each strategy's own parse():
 * tables of malformed strings that must be refused with IDB_EINPUT (with a one-line
 * message), and tables of valid strings that must parse and format back to the canonical
 * text (the same text, lowercase; ULID uppercase).
 *
 * Kinds: decimal 64-bit (counter), UUID (uuidv4, uuidv7), ObjectId (objectid),
 * snowflake (decimal with the top bit clear), ULID (Crockford base32, formatted uppercase),
 * segment (decimal without 0) and KSUID (27 characters of base62, at most 2^160 - 1).
 * A strategy missing from the registry, or one whose parser is not written yet, fails
 * here: nothing is skipped. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strategy.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static const idb_strategy *must_find(const char *name)
{
    const idb_strategy *s = idb_strategy_find(name);
    if (!s) fail_msg("no strategy '%s' in the registry", name);
    return s;
}

/* Show a row with its control and non-ASCII bytes escaped. */
static const char *shown(const char *text, char *buf, size_t n)
{
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && j + 5 < n; p++)
        j += (size_t)(isprint(*p) ? snprintf(buf + j, n - j, "%c", *p)
                                  : snprintf(buf + j, n - j, "\\x%02x", *p));
    buf[j] = 0;
    return buf;
}

/* Every row must give IDB_EINPUT with a one-line message; reports every row that does not. */
static void expect_rejected(const char *name, const char *const *rows, size_t n)
{
    const idb_strategy *s = must_find(name);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        idb_id id;
        idb_err err = { 0 };
        int rc = s->parse(rows[i], &id, &err);
        char b[160];
        if (rc != IDB_EINPUT) {
            char text[IDB_TEXT_MAX];
            if (rc == 0) s->format(&id, text); else text[0] = 0;
            print_error("%s: \"%s\" gave %d%s%s, expected IDB_EINPUT\n", name,
                        shown(rows[i], b, sizeof b), rc, rc == 0 ? ", parsed as " : "", text);
            bad++;
        } else if (err.code != IDB_EINPUT || !err.msg[0] || strchr(err.msg, '\n')) {
            print_error("%s: \"%s\": refused without a one-line message\n", name,
                        shown(rows[i], b, sizeof b));
            bad++;
        }
    }
    if (bad) fail_msg("%s: %d of %zu malformed strings were not refused", name, bad, n);
}

/* Each row {input, text} must parse to an ID of the strategy's width and format as text. */
static void expect_round_trip(const char *name, const char *const (*rows)[2], size_t n)
{
    const idb_strategy *s = must_find(name);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        idb_id id;
        idb_err err = { 0 };
        char text[IDB_TEXT_MAX] = "";
        int rc = s->parse(rows[i][0], &id, &err);
        if (rc != 0) {
            print_error("%s: \"%s\" refused (%d): %s\n", name, rows[i][0], rc, err.msg);
            bad++;
            continue;
        }
        s->format(&id, text);
        if (id.len * 8 != s->bits || strcmp(text, rows[i][1]) != 0) {
            print_error("%s: \"%s\" parsed to %d bytes, formatted \"%s\"; expected %d bytes, "
                        "\"%s\"\n", name, rows[i][0], id.len, text, s->bits / 8, rows[i][1]);
            bad++;
        }
    }
    if (bad) fail_msg("%s: %d of %zu valid strings did not round-trip", name, bad, n);
}

/* ---- decimal 64-bit ---------------------------------------------------------------- */

static const char *const decimal_bad[] = {
    "",                          /* empty */
    "+1", "-1", "-0", "+0",      /* signs */
    " 1", "1 ", " ", "1 2",      /* spaces */
    "\t1", "1\n",                /* other white space */
    "01", "00", "007",           /* leading zeros */
    "00000000000000000001",      /* 20 characters, but a leading zero */
    "0x10", "0X1F", "ff", "1a",  /* hex */
    "1.0", "1e3", "1,000", "1_000", "1'000",
    "18446744073709551616",      /* 2^64: one past the largest 64-bit value */
    "18446744073709551620",
    "99999999999999999999",      /* 20 digits, overflow */
    "184467440737095516150",     /* 21 digits */
    "100000000000000000000000",
    "one", "--1", "1-", "NaN",
    "\xd9\xa3",                  /* ARABIC-INDIC DIGIT THREE */
    "\xef\xbc\x91",              /* FULLWIDTH DIGIT ONE */
};

static const char *const decimal_good[][2] = {
    { "0", "0" }, { "1", "1" }, { "9", "9" }, { "10", "10" }, { "4096", "4096" },
    { "999999999999", "999999999999" }, { "1000000000000", "1000000000000" },
    { "9223372036854775807", "9223372036854775807" },
    { "9223372036854775808", "9223372036854775808" },
    { "18446744073709551615", "18446744073709551615" },   /* 2^64 - 1 */
};

static void test_decimal_malformed(void **state)
{
    (void)state;
    expect_rejected("counter", decimal_bad, NROWS(decimal_bad));
}

static void test_decimal_round_trip(void **state)
{
    (void)state;
    expect_round_trip("counter", decimal_good, NROWS(decimal_good));
}

/* ---- UUID ---------------------------------------------------------------------------- */

#define UUID_ROWS 32

/* Malformed variants of a valid UUID: wrong length, dashes missing or misplaced, bad
 * digits, wrappers. Built from a valid base so they fail for their form alone. */
static size_t uuid_malformed(const char *base, char rows[UUID_ROWS][64])
{
    size_t n = 0;
    char t[64];
#define ROW(...) snprintf(rows[n++], 64, __VA_ARGS__)
    ROW("%s", "");
    ROW("%.35s", base);                                  /* 35 characters */
    ROW("%s0", base);                                    /* 37 characters */
    ROW("%.8s%.4s%.4s%.4s%.12s", base, base + 9, base + 14, base + 19, base + 24);  /* 32 hex */
    ROW("%.8s-%.4s-%.4s-%.4s%.12s", base, base + 9, base + 14, base + 19, base + 24);
    ROW("%.7s-%c%s", base, base[7], base + 9);           /* first dash one place early */
    ROW("%.8s%c-%s", base, base[9], base + 10);          /* first dash one place late */
    strcpy(t, base); t[13] = t[14]; t[14] = '-'; ROW("%s", t);   /* middle dash late */
    strcpy(t, base); t[23] = t[22]; t[22] = '-'; ROW("%s", t);   /* last dash early */
    strcpy(t, base); t[8] = t[13] = t[18] = t[23] = '_'; ROW("%s", t);
    strcpy(t, base); t[8] = t[13] = t[18] = t[23] = ' '; ROW("%s", t);
    strcpy(t, base); t[8] = ':'; ROW("%s", t);
    strcpy(t, base); t[0] = 'g'; ROW("%s", t);          /* bad hex digits */
    strcpy(t, base); t[35] = 'G'; ROW("%s", t);
    strcpy(t, base); t[20] = 'x'; ROW("%s", t);
    strcpy(t, base); t[2] = '+'; ROW("%s", t);
    strcpy(t, base); t[35] = ' '; ROW("%s", t);         /* trailing space, length 36 */
    ROW(" %s", base);                                    /* leading space */
    ROW("%s\n", base);
    ROW("{%s}", base);                                   /* braces (Microsoft GUID form) */
    ROW("urn:uuid:%s", base);                            /* RFC 9562 URN */
    ROW("0x%.8s%.4s%.4s%.4s%.12s", base, base + 9, base + 14, base + 19, base + 24);
    ROW("%.34s\xc3\xa9", base);                          /* 36 bytes, ends in U+00E9 */
    strcpy(t, base); t[24] = '-'; ROW("%s", t);          /* two dashes in a row */
    ROW("%.36s", "00000000-0000-0000-0000-000000000000");          /* nil UUID */
    ROW("%.36s", "ffffffff-ffff-ffff-ffff-ffffffffffff");          /* max UUID */
    ROW("%.36s", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF");
#undef ROW
    return n;
}

static void expect_uuid_rejected(const char *name, const char *base, const char *const *extra,
                                 size_t nextra)
{
    char rows[UUID_ROWS][64];
    size_t n = uuid_malformed(base, rows);
    const char *all[UUID_ROWS + 32];
    for (size_t i = 0; i < n; i++) all[i] = rows[i];
    assert_true(n + nextra <= NROWS(all));
    for (size_t i = 0; i < nextra; i++) all[n + i] = extra[i];
    assert_true(n >= 20);
    expect_rejected(name, all, n + nextra);
}

/* Well-formed UUIDs of the wrong version or variant for the v4 parser. */
static const char *const uuidv4_wrong[] = {
    "017f22e2-79b0-7cc3-98c4-dc0c0c07398f",   /* v7 (RFC 9562 A.6) */
    "c232ab00-9414-11ec-b3c8-9f6bdeced846",   /* v1 (RFC 9562 A.1) */
    "5df41881-3aed-3515-88a7-2f4a814cf09e",   /* v3 (RFC 9562 A.2) */
    "2ed6657d-e927-568b-95e1-2665a8aea6a2",   /* v5 (RFC 9562 A.4) */
    "1ec9414c-232a-6b00-b3c8-9f6bdeced846",   /* v6 (RFC 9562 A.5) */
    "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0",   /* v8 (RFC 9562 B.1) */
    "f47ac10b-58cc-0372-a567-0e02b2c3d479",   /* version 0 */
    "f47ac10b-58cc-f372-a567-0e02b2c3d479",   /* version 15 */
    "f47ac10b-58cc-4372-c567-0e02b2c3d479",   /* variant 110 (Microsoft) */
    "f47ac10b-58cc-4372-d567-0e02b2c3d479",
    "f47ac10b-58cc-4372-e567-0e02b2c3d479",   /* variant 111 (reserved) */
    "f47ac10b-58cc-4372-f567-0e02b2c3d479",
    "f47ac10b-58cc-4372-0567-0e02b2c3d479",   /* variant 0 (NCS) */
    "f47ac10b-58cc-4372-7567-0e02b2c3d479",
    "F47AC10B-58CC-4372-C567-0E02B2C3D479",
};

/* ... and for the v7 parser. */
static const char *const uuidv7_wrong[] = {
    "f47ac10b-58cc-4372-a567-0e02b2c3d479",   /* v4 (the chapter's example) */
    "919108f7-52d1-4320-9bac-f847db4148a8",   /* v4 (RFC 9562 A.3) */
    "c232ab00-9414-11ec-b3c8-9f6bdeced846",   /* v1 */
    "1ec9414c-232a-6b00-b3c8-9f6bdeced846",   /* v6 */
    "2489e9ad-2ee2-8e00-8ec9-32d5f69181c0",   /* v8 */
    "017f22e2-79b0-0cc3-98c4-dc0c0c07398f",   /* version 0 */
    "017f22e2-79b0-fcc3-98c4-dc0c0c07398f",   /* version 15 */
    "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f",   /* variant 110 */
    "017f22e2-79b0-7cc3-d8c4-dc0c0c07398f",
    "017f22e2-79b0-7cc3-e8c4-dc0c0c07398f",   /* variant 111 */
    "017f22e2-79b0-7cc3-f8c4-dc0c0c07398f",
    "017f22e2-79b0-7cc3-08c4-dc0c0c07398f",   /* variant 0 */
    "017f22e2-79b0-7cc3-78c4-dc0c0c07398f",
    "017F22E2-79B0-7CC3-C8C4-DC0C0C07398F",
};

static const char *const uuidv4_good[][2] = {
    { "f47ac10b-58cc-4372-a567-0e02b2c3d479", "f47ac10b-58cc-4372-a567-0e02b2c3d479" },
    { "919108f7-52d1-4320-9bac-f847db4148a8", "919108f7-52d1-4320-9bac-f847db4148a8" },
    { "f47ac10b-58cc-4372-8567-0e02b2c3d479", "f47ac10b-58cc-4372-8567-0e02b2c3d479" },
    { "f47ac10b-58cc-4372-9567-0e02b2c3d479", "f47ac10b-58cc-4372-9567-0e02b2c3d479" },
    { "f47ac10b-58cc-4372-b567-0e02b2c3d479", "f47ac10b-58cc-4372-b567-0e02b2c3d479" },
    { "00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000000" },
    { "ffffffff-ffff-4fff-bfff-ffffffffffff", "ffffffff-ffff-4fff-bfff-ffffffffffff" },
    /* RFC 9562 §4: hex digits are case-insensitive on input, lowercase on output */
    { "F47AC10B-58CC-4372-A567-0E02B2C3D479", "f47ac10b-58cc-4372-a567-0e02b2c3d479" },
    { "919108F7-52d1-4320-9BAC-f847db4148A8", "919108f7-52d1-4320-9bac-f847db4148a8" },
};

static const char *const uuidv7_good[][2] = {
    { "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f" },
    { "01890a5d-ac96-774b-bcce-b302099a8057", "01890a5d-ac96-774b-bcce-b302099a8057" },
    { "017f22e2-79b0-7cc3-88c4-dc0c0c07398f", "017f22e2-79b0-7cc3-88c4-dc0c0c07398f" },
    { "017f22e2-79b0-7cc3-a8c4-dc0c0c07398f", "017f22e2-79b0-7cc3-a8c4-dc0c0c07398f" },
    { "017f22e2-79b0-7cc3-b8c4-dc0c0c07398f", "017f22e2-79b0-7cc3-b8c4-dc0c0c07398f" },
    { "00000000-0000-7000-8000-000000000000", "00000000-0000-7000-8000-000000000000" },
    { "ffffffff-ffff-7fff-bfff-ffffffffffff", "ffffffff-ffff-7fff-bfff-ffffffffffff" },
    { "017F22E2-79B0-7CC3-98C4-DC0C0C07398F", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f" },
};

static void test_uuidv4_malformed(void **state)
{
    (void)state;
    expect_uuid_rejected("uuidv4", "f47ac10b-58cc-4372-a567-0e02b2c3d479", uuidv4_wrong,
                         NROWS(uuidv4_wrong));
}

static void test_uuidv7_malformed(void **state)
{
    (void)state;
    expect_uuid_rejected("uuidv7", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", uuidv7_wrong,
                         NROWS(uuidv7_wrong));
}

static void test_uuidv4_round_trip(void **state)
{
    (void)state;
    expect_round_trip("uuidv4", uuidv4_good, NROWS(uuidv4_good));
}

static void test_uuidv7_round_trip(void **state)
{
    (void)state;
    expect_round_trip("uuidv7", uuidv7_good, NROWS(uuidv7_good));
}

/* ---- ObjectId ------------------------------------------------------------------------ */

static const char *const objectid_bad[] = {
    "",
    "507f1f77bcf86cd79943901",              /* 23 digits */
    "507f1f77bcf86cd7994390111",            /* 25 digits */
    "507f1f77bcf86cd79943901g",             /* non-hex */
    "z07f1f77bcf86cd799439011",
    "507f1f77bcf86cd7994390-1",
    "507f1f77bcf86cd7994390.1",
    "0x507f1f77bcf86cd799439011",           /* 0x prefix */
    "0x507f1f77bcf86cd7994390",             /* 0x prefix, 24 characters */
    "0X507f1f77bcf86cd7994390",
    " 507f1f77bcf86cd79943901",             /* spaces, 24 characters */
    "507f1f77bcf86cd79943901 ",
    "507f1f77 bcf86cd79943901",
    " 507f1f77bcf86cd799439011",
    "507f1f77bcf86cd799439011\n",
    "\t507f1f77bcf86cd79943901",
    "507f1f77-bcf8-6cd7-9943-9011",         /* dashes */
    "ObjectId(\"507f1f77bcf86cd799439011\")",
    "\"507f1f77bcf86cd799439011\"",
    "{507f1f77bcf86cd799439011}",
    "abcdefghijkl",                         /* 12 raw bytes, not hex */
    "507f1f77bcf86cd7",                     /* 16 digits: a 64-bit ID */
    "f47ac10b58cc4372a5670e02b2c3d479",     /* 32 digits: a UUID */
    "+07f1f77bcf86cd799439011",
    "507f1f77bcf86cd7994390\xc3\xa9",       /* 24 bytes, ends in U+00E9 */
};

static const char *const objectid_good[][2] = {
    { "507f1f77bcf86cd799439011", "507f1f77bcf86cd799439011" },   /* MongoDB manual */
    { "5f43a1e2c0ffee0123456789", "5f43a1e2c0ffee0123456789" },
    { "0123456789abcdef01234567", "0123456789abcdef01234567" },
    { "000000000000000000000000", "000000000000000000000000" },
    { "ffffffffffffffffffffffff", "ffffffffffffffffffffffff" },
};

static void test_objectid_malformed(void **state)
{
    (void)state;
    expect_rejected("objectid", objectid_bad, NROWS(objectid_bad));
}

static void test_objectid_round_trip(void **state)
{
    (void)state;
    expect_round_trip("objectid", objectid_good, NROWS(objectid_good));
}

/* ---- snowflake: decimal, top bit clear ----------------------------------------------- */

static const char *const snowflake_top_bit[] = {
    "9223372036854775808",                  /* 2^63: top bit set */
    "9223372036854775809",
    "10000000000000000000",
    "18446744073709551615",
};

static const char *const snowflake_good[][2] = {
    { "1", "1" }, { "4096", "4096" },
    { "1541815603606036480", "1541815603606036480" },   /* 2022-06-28T16:07:40.105Z, worker 378 */
    { "175928847299117063", "175928847299117063" },     /* 2012-03-03T13:01:20.453Z, w 32, s 7 */
    { "9223372036854775807", "9223372036854775807" },   /* 2^63 - 1 */
};

static void test_snowflake_malformed(void **state)
{
    (void)state;
    const char *all[NROWS(decimal_bad) + NROWS(snowflake_top_bit)];
    size_t n = 0;
    for (size_t i = 0; i < NROWS(decimal_bad); i++) all[n++] = decimal_bad[i];
    for (size_t i = 0; i < NROWS(snowflake_top_bit); i++) all[n++] = snowflake_top_bit[i];
    expect_rejected("snowflake", all, n);
}

static void test_snowflake_round_trip(void **state)
{
    (void)state;
    expect_round_trip("snowflake", snowflake_good, NROWS(snowflake_good));
}

/* ---- ULID: 26 characters of Crockford base32 ----------------------------------------- */

static const char *const ulid_bad[] = {
    "",
    "01ARZ3NDEKTSV4RRFFQ69G5FA",            /* 25 characters */
    "01ARZ3NDEKTSV4RRFFQ69G5FAVX",          /* 27 characters */
    "01ARZ3NDEK",                           /* the time part alone */
    "0001ARZ3NDEKTSV4RRFFQ69G5FAV",         /* leading zeros, 28 characters */
    "01ARZ3NDEKTSV4RRFFQ69G5FAI",           /* I, L, O, U are not in the alphabet */
    "01ARZ3NDEKTSV4RRFFQ69G5FAL",
    "01ARZ3NDEKTSV4RRFFQ69G5FAO",
    "01ARZ3NDEKTSV4RRFFQ69G5FAU",
    "01arz3ndektsv4rrffq69g5fai",           /* ... in either case */
    "01arz3ndektsv4rrffq69g5fal",
    "01arz3ndektsv4rrffq69g5fao",
    "U1ARZ3NDEKTSV4RRFFQ69G5FAV",
    "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",           /* first character above '7': past 2^128 */
    "80000000000000000000000000",
    "90000000000000000000000000",
    "ZZZZZZZZZZZZZZZZZZZZZZZZZZ",
    "z0000000000000000000000000",
    "01ARZ3NDEK-TSV4RRFFQ69G5FA",           /* separators, 26 characters */
    "01ARZ3NDEK TSV4RRFFQ69G5FA",
    " 1ARZ3NDEKTSV4RRFFQ69G5FAV",           /* spaces, 26 characters */
    "01ARZ3NDEKTSV4RRFFQ69G5FA ",
    " 01ARZ3NDEKTSV4RRFFQ69G5FAV",
    "01ARZ3NDEKTSV4RRFFQ69G5FAV\n",
    "01ARZ3NDEKTSV4RRFFQ69G5FA*",           /* Crockford's check symbols */
    "01ARZ3NDEKTSV4RRFFQ69G5FA~",
    "01ARZ3NDEKTSV4RRFFQ69G5FA=",
    "01ARZ3NDEKTSV4RRFFQ69G5FA$",
    "01ARZ3NDEKTSV4RRFFQ69G5FA_",
    "01ARZ3NDEKTSV4RRFFQ69G5F\xc3\xa9",     /* 26 bytes, ends in U+00E9 */
    "01563e3ab5d3d6764c61efb99302bd5b",     /* the same 128 bits in hex */
    "01563e3a-b5d3-d676-4c61-efb99302bd5b", /* ... and as a UUID */
};

static const char *const ulid_good[][2] = {
    { "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAV" },   /* the spec's example */
    { "01AN4Z07BY79KA1307SR9X4MV3", "01AN4Z07BY79KA1307SR9X4MV3" },   /* the spec's diagram */
    { "01BX5ZZKBKACTAV9WEVGEMMVRZ", "01BX5ZZKBKACTAV9WEVGEMMVRZ" },   /* monotonic pair */
    { "01BX5ZZKBKACTAV9WEVGEMMVS0", "01BX5ZZKBKACTAV9WEVGEMMVS0" },
    { "00000000000000000000000000", "00000000000000000000000000" },
    { "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" },   /* 2^128 - 1 */
    /* case-insensitive on input, uppercase on output */
    { "01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FAV" },
    { "01ArZ3nDeKtSv4RrFfQ69g5FaV", "01ARZ3NDEKTSV4RRFFQ69G5FAV" },
    { "7zzzzzzzzzzzzzzzzzzzzzzzzz", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" },
};

static void test_ulid_malformed(void **state)
{
    (void)state;
    expect_rejected("ulid", ulid_bad, NROWS(ulid_bad));
}

static void test_ulid_round_trip(void **state)
{
    (void)state;
    expect_round_trip("ulid", ulid_good, NROWS(ulid_good));
}

/* ---- segment: decimal, 0 refused (blocks start at 1) ---------------------------------- */

static const char *const segment_zero[] = { "0" };

static void test_segment_malformed(void **state)
{
    (void)state;
    const char *all[NROWS(decimal_bad) + NROWS(segment_zero)];
    size_t n = 0;
    for (size_t i = 0; i < NROWS(decimal_bad); i++) all[n++] = decimal_bad[i];
    for (size_t i = 0; i < NROWS(segment_zero); i++) all[n++] = segment_zero[i];
    expect_rejected("segment", all, n);
}

static void test_segment_round_trip(void **state)
{
    (void)state;
    expect_round_trip("segment", decimal_good + 1, NROWS(decimal_good) - 1);   /* not "0" */
}

/* ---- KSUID: 27 characters of base62, 0-9A-Za-z (case matters), at most 2^160 - 1 ----- */

static const char *const ksuid_bad[] = {
    "",
    "0ujtsYcgvSTl8PAuAdqWYSMnLO",             /* 26 characters */
    "0ujtsYcgvSTl8PAuAdqWYSMnLOv0",           /* 28 characters */
    "00ujtsYcgvSTl8PAuAdqWYSMnLOv",           /* a leading zero too many */
    "aWgEPTl1tmebfsQzFP4bxwgy80W",            /* the largest + 1 = 2^160 */
    "aWgEPTl1tmebfsQzFP4bxwgy810",
    "aWgEPTl1tmebfsQzFP4bxwgy90V",
    "b00000000000000000000000000",
    "zzzzzzzzzzzzzzzzzzzzzzzzzzz",            /* 62^27 - 1 */
    "0ujtsYcgvSTl8PAuAdqWYSMnLO-",            /* not base62: separators, signs, padding */
    "0ujtsYcgvSTl8PAuAdqWYSMnLO_",
    "0ujtsYcgvSTl8PAuAdqWYSMnLO+",
    "0ujtsYcgvSTl8PAuAdqWYSMnLO/",
    "0ujtsYcgvSTl8PAuAdqWYSMnLO=",
    "+ujtsYcgvSTl8PAuAdqWYSMnLOv",
    " ujtsYcgvSTl8PAuAdqWYSMnLOv",            /* spaces, 27 characters */
    "0ujtsYcgvSTl8PAuAdqWYSMnLO ",
    " 0ujtsYcgvSTl8PAuAdqWYSMnLOv",
    "0ujtsYcgvSTl8PAuAdqWYSMnLOv\n",
    "0ujtsYcgvSTl8PAuAdqWYSMnL\xc3\xa9",       /* 27 bytes, ends in U+00E9 */
    "0669f7efb5a1cd34b5f99d1154fb6853345c9735", /* the same 160 bits in hex */
};

static const char *const ksuid_good[][2] = {
    { "0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0ujtsYcgvSTl8PAuAdqWYSMnLOv" },   /* the README's */
    { "000000000000000000000000000", "000000000000000000000000000" },
    { "aWgEPTl1tmebfsQzFP4bxwgy80V", "aWgEPTl1tmebfsQzFP4bxwgy80V" },   /* 2^160 - 1 */
    { "000007n42DGM5Tflk9n8mt7Fhc8", "000007n42DGM5Tflk9n8mt7Fhc8" },   /* 2^128 */
    { "000000000000000000000000010", "000000000000000000000000010" },   /* 62 */
    { "100000000000000000000000000", "100000000000000000000000000" },   /* 62^26 */
};

static void test_ksuid_malformed(void **state)
{
    (void)state;
    expect_rejected("ksuid", ksuid_bad, NROWS(ksuid_bad));
}

static void test_ksuid_round_trip(void **state)
{
    (void)state;
    expect_round_trip("ksuid", ksuid_good, NROWS(ksuid_good));
}

/* ---- decode: unsigned fields ------------------------------------------------------- */

/* decode() callback: append "key=value;" to the char[DECODE_TEXT_MAX] at ctx. */
#define DECODE_TEXT_MAX 512
static void append_field(void *ctx, const char *key, const char *value)
{
    char *out = ctx;
    size_t n = strlen(out);
    snprintf(out + n, DECODE_TEXT_MAX - n, "%s=%s;", key, value);
}

/* The largest ID of each 64-bit or counter field decodes to unsigned values (a field above
 * 2^63 - 1 must not print as negative), through parse() and decode() with options kv. */
static void test_decode_unsigned_max(void **state)
{
    (void)state;
    static const struct { const char *name, *text, *kv, *want; } rows[] = {
        { "counter", "18446744073709551615", NULL, "value=18446744073709551615;" },
        { "interleaved", "18446744073709551615", "shards=1",
          "shard=0;shards=1;value=18446744073709551615;" },
        { "interleaved", "18446744073709551615", "shards=1048576",
          "shard=1048574;shards=1048576;value=18446744073709551615;" },
        { "segment", "18446744073709551615", NULL,
          "value=18446744073709551615;block=18446744073709551;offset=614;" },
        { "range", "9223372036854775807", "range_size=1",
          "value=9223372036854775807;range=9223372036854775807;offset=0;" },
        { "snowflake", "9223372036854775807", NULL,
          "timestamp_ms=3487858230208;time=2080-07-10T17:30:30.208Z;worker=1023;"
          "sequence=4095;" },
        { "objectid", "ffffffffffffffffffffffff", NULL,
          "timestamp_s=4294967295;time=2106-02-07T06:28:15Z;process_random=ffffffffff;"
          "counter=16777215;" },
        { "uuidv7", "ffffffff-ffff-7fff-bfff-ffffffffffff", NULL,
          "version=7;variant=10;timestamp_ms=281474976710655;"
          "time=10889-08-02T05:31:50.655Z;counter=4398046511103;" },
    };
    for (size_t i = 0; i < NROWS(rows); i++) {
        const idb_strategy *s = must_find(rows[i].name);
        idb_err err = { 0 };
        idb_opts o;
        idb_id id;
        char out[DECODE_TEXT_MAX] = "";
        assert_int_equal(idb_opts_parse(&o, s->options, &rows[i].kv, rows[i].kv != NULL,
                                        "test", &err), 0);
        assert_int_equal(s->parse(rows[i].text, &id, &err), 0);
        assert_int_equal(s->decode(&o, &id, append_field, out, &err), 0);
        if (strcmp(out, rows[i].want) != 0)
            fail_msg("decode %s %s: %s, expected %s", rows[i].name, rows[i].text, out,
                     rows[i].want);
    }
}

/* Every registered strategy: the vectors its table declares (strategy.h) round-trip, and
 * each one spoiled in ways no text form allows is refused (an empty string, a blank before
 * it, a '!' after it, a control character after its first). A new strategy is covered here by
 * its own table, without a line in this file. */
static void test_declared_vectors(void **state)
{
    (void)state;
    for (const idb_strategy *const *p = idb_strategies; *p; p++) {
        const idb_strategy *s = *p;
        size_t n = 0;
        while (s->vectors && s->vectors[n].text) n++;
        if (n == 0) fail_msg("%s declares no text vectors", s->name);
        const char *rows[64][2];
        if (n > 64) n = 64;
        for (size_t i = 0; i < n; i++) {
            rows[i][0] = s->vectors[i].text;
            rows[i][1] = s->vectors[i].canonical;
        }
        expect_round_trip(s->name, (const char *const (*)[2])rows, n);
        for (size_t i = 0; i < n; i++) {
            char spoiled[4][IDB_TEXT_MAX + 8];
            const char *c = s->vectors[i].canonical;
            snprintf(spoiled[0], sizeof spoiled[0], "%s", "");
            snprintf(spoiled[1], sizeof spoiled[1], " %s", c);
            snprintf(spoiled[2], sizeof spoiled[2], "%s!", c);
            snprintf(spoiled[3], sizeof spoiled[3], "%c\x01%s", c[0], c + 1);
            const char *bad[4] = { spoiled[0], spoiled[1], spoiled[2], spoiled[3] };
            expect_rejected(s->name, bad, 4);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal_malformed),
        cmocka_unit_test(test_decimal_round_trip),
        cmocka_unit_test(test_uuidv4_malformed),
        cmocka_unit_test(test_uuidv4_round_trip),
        cmocka_unit_test(test_uuidv7_malformed),
        cmocka_unit_test(test_uuidv7_round_trip),
        cmocka_unit_test(test_objectid_malformed),
        cmocka_unit_test(test_objectid_round_trip),
        cmocka_unit_test(test_snowflake_malformed),
        cmocka_unit_test(test_snowflake_round_trip),
        cmocka_unit_test(test_ulid_malformed),
        cmocka_unit_test(test_ulid_round_trip),
        cmocka_unit_test(test_segment_malformed),
        cmocka_unit_test(test_segment_round_trip),
        cmocka_unit_test(test_ksuid_malformed),
        cmocka_unit_test(test_ksuid_round_trip),
        cmocka_unit_test(test_decode_unsigned_max),
        cmocka_unit_test(test_declared_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

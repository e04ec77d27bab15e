/* fuzz_ids.c — libFuzzer target: every strategy's ID parser, formatter and decoder.
 *
 * Input: byte 0 picks the strategy (its index in the registry, modulo the count) and the
 * mode; the rest is, in text mode, "TEXT[\nKEY=VALUE]..." and in raw mode "L BYTES... [\n
 * KEY=VALUE]..." (byte L is the ID's length, 1..IDB_ID_MAX, then that many ID bytes).
 * The KEY=VALUE lines are the strategy's options for decode() (defaults when none; the
 * input is dropped when they are refused). Checked properties:
 *   - parse() returns 0 or IDB_EINPUT; a refusal has a one-line message of printable text;
 *   - a parsed ID has the strategy's width, and its text is canonical: format() of it is
 *     the input up to ASCII case, and parse(format(id)) gives the same ID (round trip);
 *   - decode() of a parsed ID, or of any raw bytes, returns 0 or IDB_EINPUT, and emits
 *     only non-empty keys and values of printable text; a refusal has a message.
 * ASan and UBSan catch the rest (reads past the text, overflows in the arithmetic).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_util.h"
#include "strategy.h"

#define OPT_LINES_MAX IDB_OPTS_MAX       /* option lines read after the ID */
#define MODES 2                          /* text, raw */
#define ID_FILL 0xA5                     /* an ID before parse: a length left unset shows */

/* 1 if s is printable ASCII throughout (no control byte: messages and decode lines are
 * one line each). */
static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) return 0;
    return 1;
}

/* decode() callback: every field is a non-empty key and a printable value. */
static void check_field(void *ctx, const char *key, const char *value)
{
    const char *name = ctx;
    FUZZ_CHECK(key && *key && printable(key), "%s: decode emitted a bad key", name);
    FUZZ_CHECK(value && *value && printable(value), "%s: decode emitted a bad value for %s",
               name, key);
}

/* A refusal says why in one printable line. */
static void check_refusal(const idb_strategy *s, const char *what, int rc, const idb_err *err)
{
    FUZZ_CHECK(rc == IDB_EINPUT, "%s: %s returned %d, not 0 or IDB_EINPUT", s->name, what, rc);
    FUZZ_CHECK(err->msg[0] && printable(err->msg), "%s: %s refused without a one-line message",
               s->name, what);
}

/* Decode id with the options of lines[0..n); checks the fields and the return code. */
static void decode(const idb_strategy *s, const idb_id *id, char **lines, int n)
{
    idb_opts opts;
    idb_err err = { 0 };
    if (idb_opts_parse(&opts, s->options, (const char *const *)lines, n, s->name, &err) != 0)
        return;
    int rc = s->decode(&opts, id, check_field, (void *)s->name, &err);
    if (rc != 0) check_refusal(s, "decode", rc, &err);
}

/* Text mode: parse, check the round trip, decode. */
static void text_mode(const idb_strategy *s, char *text)
{
    char *lines[1 + OPT_LINES_MAX];
    int n = fuzz_lines(text, lines, 1 + OPT_LINES_MAX);
    const char *id_text = n ? lines[0] : "";
    idb_id id, again;
    idb_err err = { 0 };
    memset(&id, ID_FILL, sizeof id);
    int rc = s->parse(id_text, &id, &err);
    if (rc != 0) { check_refusal(s, "parse", rc, &err); return; }
    FUZZ_CHECK(id.len == s->bits / 8, "%s: parse gave %d bytes, not %d", s->name, id.len,
               s->bits / 8);
    char buf[IDB_TEXT_MAX + 1], buf2[IDB_TEXT_MAX + 1];
    memset(buf, 0, sizeof buf);
    s->format(&id, buf);
    FUZZ_CHECK(buf[IDB_TEXT_MAX] == 0 && strlen(buf) < IDB_TEXT_MAX,
               "%s: format wrote past IDB_TEXT_MAX", s->name);
    FUZZ_CHECK(strcasecmp(buf, id_text) == 0, "%s: accepted '%s', whose canonical form is '%s'",
               s->name, id_text, buf);
    rc = s->parse(buf, &again, &err);
    FUZZ_CHECK(rc == 0, "%s: refused its own format '%s': %s", s->name, buf, err.msg);
    FUZZ_CHECK(idb_id_cmp(&id, &again) == 0, "%s: '%s' parsed, formatted as '%s', parsed to "
               "another ID", s->name, id_text, buf);
    s->format(&again, buf2);
    FUZZ_CHECK(strcmp(buf, buf2) == 0, "%s: format is not stable ('%s', then '%s')", s->name,
               buf, buf2);
    decode(s, &id, lines + 1, n > 1 ? n - 1 : 0);
}

/* Raw mode: decode bytes that no parser checked. */
static void raw_mode(const idb_strategy *s, const uint8_t *data, size_t size)
{
    if (size < 1) return;
    size_t len = data[0] % IDB_ID_MAX + 1;
    if (size < 1 + len) return;
    idb_id id = { .len = (uint8_t)len };
    memcpy(id.b, data + 1, len);
    char *rest = fuzz_text(data + 1 + len, size - 1 - len);
    char *lines[OPT_LINES_MAX];
    int n = rest[0] == '\n' ? fuzz_lines(rest + 1, lines, OPT_LINES_MAX) : 0;
    decode(s, &id, lines, n);
    free(rest);
}

/* One input: the strategy and mode of byte 0, then text_mode or raw_mode. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int count = 0;
    while (idb_strategies[count]) count++;
    if (size < 1 || count == 0) return 0;
    const idb_strategy *s = idb_strategies[data[0] % count];
    int mode = data[0] / count % MODES;
    if (mode == 0) {
        char *text = fuzz_text(data + 1, size - 1);
        text_mode(s, text);
        free(text);
    } else {
        raw_mode(s, data + 1, size - 1);
    }
    return 0;
}

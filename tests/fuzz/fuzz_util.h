/* fuzz_util.h — what the libFuzzer targets of tests/fuzz share: the check that turns a
 * broken property into a crash libFuzzer keeps, the input as text and as lines, and a
 * private temporary directory for the readers that take a path (removed at exit).
 *
 * Every target defines LLVMFuzzerTestOneInput (and, when it needs one, the temporary
 * directory through fuzz_tmp_path); docs/fuzzing.md says how to build and run them.
 */
#ifndef IDB_FUZZ_UTIL_H
#define IDB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry point, declared here so -Wmissing-prototypes stays quiet. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* UBSan's defaults for the targets (fuzz_util.c): undefined behaviour aborts with a stack,
 * so libFuzzer keeps the input as a crash. UBSAN_OPTIONS=halt_on_error=0 overrides it to
 * go on after printing (to list every site a long run reaches). */
const char *__ubsan_default_options(void);

/* A property of the code under test: when cond is false, print what broke and abort, so
 * libFuzzer saves the input as a crash (assert() is compiled out in release builds). */
#define FUZZ_CHECK(cond, ...) \
    do { if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

/* Print "FILE:LINE: property COND broke: MESSAGE" on stderr and abort. */
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* data[0..size) as a NUL-terminated malloc'd string (bytes after an embedded NUL are not
 * seen by C-string readers). Aborts when out of memory; the caller frees it. */
char *fuzz_text(const uint8_t *data, size_t size);

/* Split text in place at each '\n' into at most max lines (the rest joins the last).
 * Returns how many (0 for an empty text). */
int fuzz_lines(char *text, char **lines, int max);

/* The path of NAME inside this process's private temporary directory (made on first use
 * under $TMPDIR or /tmp, removed with everything in it at exit) into buf (len bytes).
 * Aborts when the directory cannot be made or the path does not fit. Returns buf. */
char *fuzz_tmp_path(const char *name, char *buf, size_t len);

/* Write data[0..size) to path (created or truncated). Aborts on a write error: a full
 * disk is not a finding. */
void fuzz_write_file(const char *path, const void *data, size_t size);

#endif

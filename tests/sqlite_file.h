/* sqlite_file.h — for the sqlite tests: a small reader of SQLite's file format
 * (https://sqlite.org/fileformat2.html): the whole file in memory, its page size and page
 * count from the header. Header-only and static; include it after cmocka.h (it asserts). */
#ifndef IDB_TEST_SQLITE_FILE_H
#define IDB_TEST_SQLITE_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define DB_HEADER 100             /* page 1 starts with the database header */
#define LEAF_HEADER 8             /* b-tree page header of a leaf ... */
#define INTERIOR_HEADER 12        /* ... and of an interior page (+ the right-most child) */
enum { INDEX_INTERIOR = 2, TABLE_INTERIOR = 5, INDEX_LEAF = 10, TABLE_LEAF = 13 };

/* Big-endian unsigned of n bytes at p. */
static unsigned long long be(const uint8_t *p, int n)
{
    unsigned long long v = 0;
    while (n--) v = v << 8 | *p++;
    return v;
}

typedef struct sqlfile {
    uint8_t *b;
    long long size, psz, pages, freelist;
} sqlfile;

/* The whole file at path, and its header fields. The page count in the header is only
 * valid when "version-valid-for" equals the change counter: asserted. */
static void sqlfile_read(const char *path, sqlfile *f)
{
    FILE *in = fopen(path, "rb");
    assert_non_null(in);
    struct stat st;
    assert_int_equal(fstat(fileno(in), &st), 0);
    f->size = (long long)st.st_size;
    f->b = malloc((size_t)f->size);
    assert_int_equal(fread(f->b, 1, (size_t)f->size, in), (size_t)f->size);
    fclose(in);
    assert_memory_equal(f->b, "SQLite format 3", 16);
    f->psz = (long long)be(f->b + 16, 2);
    if (f->psz == 1) f->psz = 65536;
    assert_int_equal(be(f->b + 92, 4), be(f->b + 24, 4));
    f->pages = (long long)be(f->b + 28, 4);
    f->freelist = (long long)be(f->b + 36, 4);
    assert_int_equal(f->pages * f->psz, f->size);
}

#endif

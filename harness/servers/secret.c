/* secret.c — the per-run secret of a server that listens on TCP: made from getrandom(2)
 * (SRV_SECRET_BYTES random bytes as hex), kept in DIR/idbench-secret (0600, owned by
 * idbench's user, created through the directory's descriptor with O_EXCL|O_NOFOLLOW after
 * removing an older one), read back by idbench's own clients and a later start on kept data
 * (secret.h: O_NOFOLLOW, a regular file of idbench's user, 0600, one link), and handed to
 * the server only through files it owns, written as the server user (srv_write_private in
 * server.c: postgres's initdb --pwfile, mariadb's --init-file, redis's ACL file), never on
 * a command line. A server without TCP has none: its Unix socket lives in a 0700
 * directory only its user (and root) can enter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "secret.h"
#include "server_int.h"

#define HEX "0123456789abcdef"

/* SRV_SECRET_BYTES from getrandom as hex into buf (2 * SRV_SECRET_BYTES + 1 bytes). */
static int random_hex(char *buf, idb_err *err)
{
    unsigned char raw[SRV_SECRET_BYTES];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return idb_fail(err, IDB_EIO, "getrandom: %s", strerror(errno));
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        buf[2 * i] = HEX[raw[i] >> 4];
        buf[2 * i + 1] = HEX[raw[i] & 0xf];
    }
    buf[2 * sizeof raw] = 0;
    return 0;
}

int idb_server_secret_new(char *buf, size_t cap, idb_err *err)
{
    if (cap < 2 * SRV_SECRET_BYTES + 1)
        return idb_fail(err, IDB_EINPUT, "a secret needs %d bytes of room",
                        2 * SRV_SECRET_BYTES + 1);
    return random_hex(buf, err);
}

/* Write text into a new file name in the server directory dfd (path, for messages), as
 * idbench's user: an old one (or a symlink) there is removed first, the new one made with
 * O_EXCL|O_NOFOLLOW through dfd, mode 0600, so that nothing the server user (who owns the
 * directory) planted is followed or reused. Returns 0 or IDB_EIO. */
static int write_new(int dfd, const char *name, const char *path, const char *text,
                     idb_err *err)
{
    if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT)
        return idb_fail(err, IDB_EIO, "cannot remove %s: %s", path, strerror(errno));
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t n = strlen(text);
    int ok = fd >= 0 && write(fd, text, n) == (ssize_t)n && fchmod(fd, 0600) == 0;
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        if (fd >= 0) unlinkat(dfd, name, 0);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* 1 when the kind's data under s->dir already holds the password of an earlier start. */
static int kept(const idb_server *s)
{
    return s->kind->secret_kept && srv_has(s->dfd, s->kind->secret_kept);
}

int srv_secret_prepare(idb_server *s, idb_err *err)
{
    int given = s->secret[0] != 0;            /* the conf's: shared by a group */
    s->secretfile[0] = 0;
    if (!s->tcp) {
        s->secret[0] = 0;
        return 0;
    }
    if (snprintf(s->secretfile, sizeof s->secretfile, "%s/" SRV_SECRETFILE, s->dir) >=
        (int)sizeof s->secretfile)
        return idb_fail(err, IDB_EINPUT, "server dir too long: %s", s->dir);
    if (kept(s) && !given) {
        idb_err e = { 0 };
        if (idb_secret_read(s->secretfile, s->secret, sizeof s->secret, &e) == 0) return 0;
        s->secretfile[0] = 0;
        return idb_fail(err, IDB_EIO, "%s: the data in %s was made without a TCP password "
                        "idbench can use (%s): remove %s/data, or use another dir",
                        s->kind->name, s->dir, e.msg, s->dir);
    }
    char text[2 * SRV_SECRET_BYTES + 2];
    int rc = given ? 0 : random_hex(s->secret, err);
    if (!rc) {
        snprintf(text, sizeof text, "%s\n", s->secret);
        rc = write_new(s->dfd, SRV_SECRETFILE, s->secretfile, text, err);
    }
    if (rc) s->secret[0] = s->secretfile[0] = 0;
    return rc;
}

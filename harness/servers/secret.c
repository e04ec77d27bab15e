/* secret.c — the per-run secret of a server that listens on TCP: made from getrandom(2)
 * (SRV_SECRET_BYTES random bytes as hex), kept in DIR/idbench-secret (0600, owned by
 * idbench's user, created with O_EXCL|O_NOFOLLOW after removing an older one), read back by
 * idbench's own clients (secret.h), and handed to the server only through files it owns
 * (srv_write_private: postgres's initdb --pwfile, mariadb's --init-file, redis's ACL file),
 * never on a command line. A server without TCP has none: its Unix socket lives in a 0700
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

/* Write text into a new file path: an old one (or a symlink) at path is removed first, the
 * new one is made with O_EXCL|O_NOFOLLOW, mode 0600, and given to owner (-1: kept as
 * idbench's). Returns 0 or IDB_EIO. */
static int write_new(const char *path, const char *text, uid_t owner, gid_t group,
                     idb_err *err)
{
    if (unlink(path) != 0 && errno != ENOENT)
        return idb_fail(err, IDB_EIO, "cannot remove %s: %s", path, strerror(errno));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t n = strlen(text);
    int ok = fd >= 0 && write(fd, text, n) == (ssize_t)n &&
             (owner == (uid_t)-1 || fchown(fd, owner, group) == 0) && fchmod(fd, 0600) == 0;
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        if (fd >= 0) unlink(path);
        return idb_fail(err, IDB_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int srv_write_private(const idb_server *s, const char *path, const char *text, idb_err *err)
{
    return write_new(path, text, s->cred.drop ? s->cred.uid : (uid_t)-1, s->cred.gid, err);
}

/* 1 when the kind's data under s->dir already holds the password of an earlier start. */
static int kept(const idb_server *s)
{
    char probe[PATH_MAX + 64];
    if (!s->kind->secret_kept) return 0;
    snprintf(probe, sizeof probe, "%s/%s", s->dir, s->kind->secret_kept);
    return access(probe, F_OK) == 0;
}

int srv_secret_prepare(idb_server *s, idb_err *err)
{
    s->secret[0] = 0;
    s->secretfile[0] = 0;
    if (!s->tcp) return 0;
    if (snprintf(s->secretfile, sizeof s->secretfile, "%s/" SRV_SECRETFILE, s->dir) >=
        (int)sizeof s->secretfile)
        return idb_fail(err, IDB_EINPUT, "server dir too long: %s", s->dir);
    if (kept(s)) {
        idb_err e = { 0 };
        if (idb_secret_read(s->secretfile, s->secret, sizeof s->secret, &e) == 0) return 0;
        s->secretfile[0] = 0;
        return idb_fail(err, IDB_EIO, "%s: the data in %s was made without a TCP password "
                        "idbench can use (%s): remove %s/data, or use another dir",
                        s->kind->name, s->dir, e.msg, s->dir);
    }
    char text[2 * SRV_SECRET_BYTES + 2];
    int rc = random_hex(s->secret, err);
    if (!rc) {
        snprintf(text, sizeof text, "%s\n", s->secret);
        rc = write_new(s->secretfile, text, (uid_t)-1, (gid_t)-1, err);
    }
    if (rc) s->secret[0] = s->secretfile[0] = 0;
    return rc;
}

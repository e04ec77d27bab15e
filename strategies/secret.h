/* secret.h — reading a password from a file that only its owner can read: the per-run
 * secret idbench makes for a server that listens on TCP (harness/servers/secret.c makes
 * it), or a user's own (the counter option secret_file=).
 *
 * The file must be a regular file (opened without following a symlink), owned by the
 * process's effective user, with no permission for group or others and no other hard link
 * (a link another user made to one of ours is not a secret file), holding one line of
 * 1 to IDB_SECRET_MAX - 1 printable, non-space ASCII characters (a trailing newline is
 * allowed). Anything else is refused: a secret another user could have written or read is
 * no secret.
 */
#ifndef IDB_SECRET_H
#define IDB_SECRET_H

#include <stddef.h>

#include "err.h"

#define IDB_SECRET_MAX 129             /* bytes of a secret, its NUL included */

/* Read the secret in the file at path into buf (cap bytes, NUL-terminated). Returns 0,
 * IDB_EINPUT (not such a file: a symlink, not a regular file, another owner, readable or
 * writable by others, more than one link, empty, too long, not one printable line) or
 * IDB_EIO (it cannot be opened or read), with one message naming path. */
int idb_secret_read(const char *path, char *buf, size_t cap, idb_err *err);

#endif

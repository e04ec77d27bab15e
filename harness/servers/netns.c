/* netns.c — the run's private network namespace (netns.h): unshare(CLONE_NEWNET), then
 * bring the new namespace's loopback interface up (it starts down, so 127.0.0.1 would not
 * answer) with SIOCSIFFLAGS. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns.h"

static int entered;

int idb_netns_entered(void) { return entered; }

/* Set IFF_UP on interface "lo" of the current namespace. 0 or errno. */
static int loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, "lo");
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
    }
    int e = rc ? errno : 0;
    close(fd);
    return e;
}

int idb_netns_private(idb_err *err)
{
    if (entered) return 0;
    if (unshare(CLONE_NEWNET) != 0)
        return idb_fail(err, IDB_EUNAVAIL, "cannot make a private network namespace "
                        "(unshare(CLONE_NEWNET): %s%s)", strerror(errno),
                        geteuid() ? "; it needs root" : "");
    int e = loopback_up();
    if (e)
        return idb_fail(err, IDB_EUNAVAIL, "cannot bring up the private namespace's loopback "
                        "interface: %s", strerror(e));
    entered = 1;
    return 0;
}

/* test_netns.c — the run's private network namespace (harness/servers/netns.h): a listener
 * on 127.0.0.1 made after idb_netns_private answers inside the namespace and not from the
 * host's; the namespace is a new one (its inode differs) with loopback up; a second call
 * is a no-op. Root only (exit 77: skipped otherwise). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns.h"

static int failures;
#define CHECK(cond, what)                                                                \
    do {                                                                                 \
        if (!(cond)) { fprintf(stderr, "FAIL: %s\n", what); failures++; }               \
    } while (0)

static ino_t ns_inode(void)
{
    struct stat st;
    return stat("/proc/self/ns/net", &st) == 0 ? st.st_ino : 0;
}

/* A TCP connection to 127.0.0.1:port in the caller's namespace: 0 connected, else errno. */
static int connect_local(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : errno;
    close(fd);
    return rc;
}

/* The child: enter the namespace, listen, tell the parent its port and namespace inode,
 * then report whether the parent's attempt reached it. Exit status: bit 0 set = entering
 * failed, bit 1 = its own connection failed, bit 2 = a connection from outside arrived. */
static int child(int to_parent, int from_parent)
{
    idb_err err = { 0 };
    if (idb_netns_private(&err) != 0 || !idb_netns_entered() || idb_netns_private(&err) != 0) {
        fprintf(stderr, "netns: %s\n", err.msg);
        return 1;
    }
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 4) ||
        getsockname(l, (struct sockaddr *)&a, &len))
        return 1;
    long msg[2] = { ntohs(a.sin_port), (long)ns_inode() };
    int status = 0;
    if (connect_local(msg[0]) != 0) status |= 2;       /* inside: must connect */
    else close(accept(l, NULL, NULL));
    if (write(to_parent, msg, sizeof msg) != sizeof msg) return 1;
    char go;
    if (read(from_parent, &go, 1) != 1) return 1;      /* the parent tried */
    struct pollfd p = { .fd = l, .events = POLLIN };
    if (poll(&p, 1, 200) > 0) status |= 4;
    return status;
}

int main(void)
{
    if (geteuid() != 0) {
        puts("skipped: a network namespace needs root");
        return 77;
    }
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return 1;
    pid_t pid = fork();
    if (pid == 0) _exit(child(up[1], down[0]));
    long msg[2];
    CHECK(read(up[0], msg, sizeof msg) == sizeof msg, "the child reports its port");
    CHECK(msg[1] != 0 && (ino_t)msg[1] != ns_inode(), "the child's namespace is a new one");
    connect_local((int)msg[0]);                    /* from the host: must not reach it */
    CHECK(write(down[1], "g", 1) == 1, "tell the child");
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && !(WEXITSTATUS(st) & 1), "the child entered a namespace");
    CHECK(WIFEXITED(st) && !(WEXITSTATUS(st) & 2), "127.0.0.1 answers inside (loopback up)");
    CHECK(WIFEXITED(st) && !(WEXITSTATUS(st) & 4), "the host's connection did not reach it");
    CHECK(idb_netns_entered() == 0, "the parent stays in the host's namespace");
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}

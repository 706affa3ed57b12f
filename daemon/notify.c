/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET (a path,
 * or an abstract socket when it starts with '@'). Type=notify in
 * systemd/acctd.service waits for READY=1. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "acctd.h"

int acctd_notify(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = -1, rc = -1;
    if (path == NULL || path[0] == '\0')
        return 0;
    size_t n = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || n >= sizeof(sa.sun_path)) {
        LOG_W("NOTIFY_SOCKET \"%s\" is not usable", path);
        goto out;
    }
    memcpy(sa.sun_path, path, n);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        LOG_W("sd_notify: socket: %s", strerror(errno));
        goto out;
    }
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0) {
        LOG_W("sd_notify: %s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    return rc;
}

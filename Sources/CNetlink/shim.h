// The kernel's netlink socket address (struct sockaddr_nl), which Glibc's
// Swift module map leaves out. Kernel uapi header only: nothing to link.
#include <sys/socket.h>
#include <linux/netlink.h>

/* statfs(2): the filesystem's magic number (f_type), which Glibc's Swift module leaves out. */
#include <sys/vfs.h>

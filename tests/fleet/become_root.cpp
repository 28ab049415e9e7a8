// A stand-in for sudo in tests/fleet/test-ansible.sh's sudo mode (a login
// user who is not root, reaching root through Ansible's become). The test
// installs it set-uid root, runnable only by that login's group; it takes
// the words Ansible's sudo become plugin gives (`-H -S -n -u root CMD...`),
// becomes root whole (uid, gid, no supplementary groups) and runs CMD in an
// environment reset as sudo's is. Only root can be become.
#include <grp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    int at = 1;
    for (; at < argc && argv[at][0] == '-'; ++at) {
        if (std::strcmp(argv[at], "-u") == 0) {
            if (at + 1 == argc || std::strcmp(argv[at + 1], "root") != 0) {
                std::fprintf(stderr, "become_root: -u root is the only user it becomes\n");
                return 1;
            }
            ++at;
        } else if (std::strcmp(argv[at], "-H") != 0 && std::strcmp(argv[at], "-S") != 0 &&
                   std::strcmp(argv[at], "-n") != 0) {
            std::fprintf(stderr, "become_root: unknown option %s\n", argv[at]);
            return 1;
        }
    }
    if (at == argc) {
        std::fprintf(stderr, "usage: become_root [-H] [-S] [-n] [-u root] COMMAND [ARG...]\n");
        return 1;
    }
    if (::setgroups(0, nullptr) != 0 || ::setgid(0) != 0 || ::setuid(0) != 0) {
        std::perror(
            "become_root: cannot become root (is it set-uid root, on a mount that allows it?)");
        return 1;
    }
    static char path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
    static char home[] = "HOME=/root";
    static char user[] = "USER=root";
    static char logname[] = "LOGNAME=root";
    static char shell[] = "SHELL=/bin/sh";
    char* env[] = {path, home, user, logname, shell, nullptr};
    ::execve(argv[at], argv + at, env);
    std::fprintf(stderr, "become_root: cannot run %s: %s\n", argv[at], std::strerror(errno));
    return 127;
}

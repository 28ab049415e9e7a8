#pragma once
// A PostgreSQL server of the test's own, for the history's tests on
// PostgreSQL: a cluster made by initdb in a scratch folder, run as an
// unprivileged user (nobody: PostgreSQL refuses root), on a Unix socket in
// that folder, its authentication trust for the user `contest` and reject
// for any other (a refused login to test). With a TCP password (TcpLogin),
// it also listens on 127.0.0.1 at a free port, where `contest` logs in
// with that password (scram-sha-256) and any other user is refused: a
// lab's server as people reach it. Stopped on every path: by the
// destructor, and when the test process dies however it dies (SIGKILL
// included) by a watchdog, a child blocked on a pipe whose writing end
// only the test holds, which wakes on its end and stops the server's
// process group (the pipe tells it each server started, restart() too).
// The server runs in a group of its own (one killpg stops it and its
// backends); PR_SET_PDEATHSIG alone would not do, as the kernel clears it
// when setpriv changes the user.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "contest/history/pg_uri.h"

namespace contest::test {

// Debian's server binaries (package postgresql), the highest version
// installed; nullopt without any.
inline std::optional<std::filesystem::path> postgres_bin_dir() {
    namespace fs = std::filesystem;
    std::optional<fs::path> best;
    std::error_code ec;
    for (auto it = fs::directory_iterator("/usr/lib/postgresql", ec);
         !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::path bin = it->path() / "bin";
        if (fs::exists(bin / "initdb") && fs::exists(bin / "postgres") &&
            (!best || std::stoi(it->path().filename().string()) >
                          std::stoi(best->parent_path().filename().string())))
            best = bin;
    }
    return best;
}

// The server's login over TCP: the user `contest`'s password.
struct TcpLogin {
    std::string password;
};

class PostgresServer {
  public:
    // dir: an empty scratch folder; it is given to the server's user.
    // tcp: also listen on 127.0.0.1 (a free port), `contest` logging in
    // with its password there.
    PostgresServer(const std::filesystem::path& bin, const std::filesystem::path& dir,
                   std::optional<TcpLogin> tcp = std::nullopt)
        : bin_(bin), dir_(dir), tcp_(std::move(tcp)) {
        const passwd* pw = ::getpwnam("nobody");
        if (!pw) throw std::runtime_error("no user nobody to run PostgreSQL as");
        uid_ = pw->pw_uid;
        gid_ = pw->pw_gid;
        std::filesystem::create_directories(dir / "sock");
        for (const auto& p : {dir, dir / "sock"})
            if (::chown(p.c_str(), uid_, gid_) != 0)
                throw std::runtime_error("cannot give " + p.string() + " to nobody");
        std::vector<std::string> initdb = {(bin / "initdb").string(),
                                           "-D",
                                           (dir / "data").string(),
                                           "-U",
                                           "contest",
                                           "--auth=trust",
                                           "-E",
                                           "UTF8",
                                           "--no-sync"};
        std::string hba = "local all contest trust\nlocal all all reject\n";
        if (tcp_) {
            // initdb sets the superuser's password from the file's first line.
            const auto file = dir / "password";
            std::ofstream(file) << tcp_->password << "\n";
            if (::chown(file.c_str(), uid_, gid_) != 0)
                throw std::runtime_error("cannot give " + file.string() + " to nobody");
            initdb.push_back("--pwfile=" + file.string());
            hba += "host all contest 127.0.0.1/32 scram-sha-256\nhost all all 0.0.0.0/0 reject\n";
            port_ = free_tcp_port();
        }
        run_as_server_user(initdb, dir / "initdb.log", true);
        std::filesystem::remove(dir / "password");
        std::ofstream(dir / "data" / "pg_hba.conf", std::ios::trunc) << hba;
        start_watchdog();
        try {
            start();
        } catch (...) {
            shut();
            throw;
        }
    }
    ~PostgresServer() { shut(); }
    PostgresServer(const PostgresServer&) = delete;
    PostgresServer& operator=(const PostgresServer&) = delete;

    // libpq's URI of the cluster's database `postgres` as user, on the
    // Unix socket (trust).
    std::string uri(const std::string& user = "contest") const {
        return "postgresql:///postgres?host=" + (dir_ / "sock").string() + "&user=" + user;
    }
    // The URI as people write it for a server over TCP:
    // postgresql://USER[:PASSWORD]@127.0.0.1:PORT/DATABASE[?QUERY], the user
    // and the password percent-encoded where a URI needs it; no password:
    // none in the URI (libpq looks in PGPASSWORD, ~/.pgpass).
    std::string tcp_uri(const std::string& user = "contest",
                        const std::optional<std::string>& password = std::nullopt,
                        const std::string& database = "postgres",
                        const std::string& query = "") const {
        if (!tcp_) throw std::logic_error("a server without TCP has no tcp_uri");
        return "postgresql://" + contest::history::uri_percent_encoded(user) +
               (password ? ":" + contest::history::uri_percent_encoded(*password) : std::string()) +
               "@127.0.0.1:" + std::to_string(port_) + "/" + database +
               (query.empty() ? "" : "?" + query);
    }
    int port() const { return port_; }
    std::filesystem::path socket_dir() const { return dir_ / "sock"; }
    pid_t pid() const { return server_; }

    // The server stopped (a fast shutdown) and started again on the same
    // port and socket, its data kept: what a lab's server does when it is
    // restarted under contest.
    void restart() {
        stop();
        start();
    }

    // The server stopped, then the watchdog let go and reaped.
    void shut() {
        stop();
        if (watchdog_write_ >= 0) ::close(watchdog_write_);
        if (watchdog_ > 0) ::waitpid(watchdog_, nullptr, 0);
        watchdog_write_ = watchdog_ = -1;
    }

    // A fast shutdown (SIGINT), then SIGKILL of its group after 30 s.
    void stop() {
        if (server_ <= 0) return;
        ::kill(server_, SIGINT);
        bool ended = false;
        for (int i = 0; i < 3000 && !ended; ++i) {
            ended = ::waitpid(server_, nullptr, WNOHANG) == server_;
            if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        ::killpg(server_, SIGKILL);  // a backend left behind, if any; all of it after 30 s
        if (!ended) ::waitpid(server_, nullptr, 0);
        server_ = -1;
        tell_watchdog(0);  // nothing for it to stop now
    }

  private:
    // A port free on 127.0.0.1 now: the kernel's choice for a socket bound
    // to port 0, closed again for the server to take.
    static int free_tcp_port() {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
            if (fd >= 0) ::close(fd);
            throw std::runtime_error("no free TCP port on 127.0.0.1");
        }
        ::close(fd);
        return ntohs(a.sin_port);
    }

    void start() {
        std::vector<std::string> words = {(bin_ / "postgres").string(),
                                          "-D",
                                          (dir_ / "data").string(),
                                          "-k",
                                          (dir_ / "sock").string(),
                                          "-c",
                                          "fsync=off",
                                          "-c",
                                          "max_connections=20"};
        if (tcp_) {
            words.insert(words.end(), {"-c", "listen_addresses=127.0.0.1", "-c",
                                       "port=" + std::to_string(port_)});
        } else {
            words.insert(words.end(), {"-c", "listen_addresses="});
        }
        server_ = run_as_server_user(words, dir_ / "server.log", false);
        if (!tell_watchdog(server_)) {
            ::killpg(server_, SIGKILL);
            ::waitpid(server_, nullptr, 0);
            server_ = -1;
            throw std::runtime_error("cannot tell the watchdog the server's pid");
        }
        wait_until_ready();
    }

    // argv run by setpriv as nobody, in a process group of its own, its
    // output to log; wait: until it ends (it must exit 0).
    pid_t run_as_server_user(std::vector<std::string> argv, const std::filesystem::path& log,
                             bool wait) {
        std::vector<std::string> words = {"setpriv", "--reuid=" + std::to_string(uid_),
                                          "--regid=" + std::to_string(gid_), "--clear-groups",
                                          "--"};
        words.insert(words.end(), argv.begin(), argv.end());
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0 || ::fchown(out, uid_, gid_) != 0)
            throw std::runtime_error("cannot open " + log.string());
        std::vector<char*> c;
        for (auto& w : words) c.push_back(w.data());
        c.push_back(nullptr);
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0);
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // until setpriv changes the user
            ::dup2(out, 1);
            ::dup2(out, 2);
            ::chdir(dir_.c_str());
            ::execvp(c[0], c.data());
            ::_exit(127);
        }
        ::close(out);
        if (pid < 0) throw std::runtime_error("fork failed");
        if (!wait) return pid;
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            throw std::runtime_error(argv.front() + " failed; see " + log.string());
        return pid;
    }

    // The watchdog reads the pipe; only this process holds its writing end
    // (close-on-exec, so no program the test starts keeps it), so the read
    // returns end of file when this process is gone, and the watchdog then
    // stops the server: SIGQUIT (an immediate shutdown, which removes its
    // shared memory), then SIGKILL of its group.
    void start_watchdog() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
        // Each server's pid is written to the pipe once it is known, and 0
        // once it is stopped; the last one written is the one to stop.
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0);  // not in the test's group: a killpg of it must not take this too
            ::close(fds[1]);
            pid_t server = -1;
            char buf[sizeof(pid_t)];
            std::size_t got = 0;
            for (;;) {
                const ssize_t n = ::read(fds[0], buf + got, sizeof buf - got);
                if (n <= 0) break;
                got += static_cast<std::size_t>(n);
                if (got < sizeof buf) continue;
                std::memcpy(&server, buf, sizeof server);
                got = 0;
            }
            if (server > 0 && ::kill(server, 0) == 0) {
                ::kill(server, SIGQUIT);
                for (int i = 0; i < 500 && ::kill(server, 0) == 0; ++i) ::usleep(10000);
                ::killpg(server, SIGKILL);
            }
            ::_exit(0);
        }
        ::close(fds[0]);
        if (pid < 0) throw std::runtime_error("fork failed");
        watchdog_ = pid;
        watchdog_write_ = fds[1];
    }

    // A pipe's write of a few bytes is whole or nothing.
    bool tell_watchdog(pid_t server) {
        return watchdog_write_ >= 0 &&
               ::write(watchdog_write_, &server, sizeof server) == sizeof server;
    }

    // postmaster.pid's eighth line is "ready" once it takes connections.
    void wait_until_ready() {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
        while (std::chrono::steady_clock::now() < until) {
            if (::waitpid(server_, nullptr, WNOHANG) == server_) {
                server_ = -1;
                throw std::runtime_error("postgres ended at its start; see " +
                                         (dir_ / "server.log").string());
            }
            // Its first line is the server's pid (setpriv execs postgres):
            // one a server killed before left is not this one's.
            std::ifstream pidfile(dir_ / "data" / "postmaster.pid");
            std::string first, line;
            std::getline(pidfile, first);
            for (int i = 1; i < 8 && std::getline(pidfile, line); ++i) {
            }
            if (first == std::to_string(server_) && line.rfind("ready", 0) == 0) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        throw std::runtime_error("postgres not ready after 120 s; see " +
                                 (dir_ / "server.log").string());
    }

    std::filesystem::path bin_, dir_;
    std::optional<TcpLogin> tcp_;
    int port_ = 0;
    uid_t uid_ = 0;
    gid_t gid_ = 0;
    pid_t server_ = -1, watchdog_ = -1;
    int watchdog_write_ = -1;
};

}  // namespace contest::test

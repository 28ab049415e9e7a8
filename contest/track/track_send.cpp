// The track's mails handed to the mail program (--send-to), each once.
#include <cerrno>
#include <string_view>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"
#include "contest/track/track_steps.h"

namespace contest::track {

namespace fs = std::filesystem;

// A mail read back to be sent: tens of KiB as written; bounded all the same.
constexpr std::uintmax_t kMaxMailBytes = 1u << 20;

namespace {

// The mail written to the mail program's stdin. A program that ends
// without reading it (one that refuses the mail) closes the pipe: the
// write fails with EPIPE, which is that program's failure to say, not a
// SIGPIPE that kills contest. So SIGPIPE is held back for the write, and
// one the write raised taken off this thread before it is let through.
bool write_to_mail_program(int fd, std::string_view text) {
    sigset_t pipe_only, before, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    const bool written = write_all(fd, text);
    const int error = errno;
    if (!written && error == EPIPE && !was_pending) {
        const timespec now{0, 0};
        while (::sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    errno = error;
    return written;
}

}  // namespace

// --send-to: each mail written and not yet handed over goes to the mail
// program once, with a To: line before its Subject. It is recorded as sent
// before the program runs: a cut while it runs loses a mail (the file stays
// in the mail folder) rather than sending it twice. A program that fails is
// said in a warning and its mail taken again by the next run.
void Track::send_mails() {
    if (o_.send_to.empty()) return;
    for (const TrackChange& change : s_.changes) {
        if (change.status != ChangeStatus::mailed || change.mail.empty()) continue;
        const std::string key = s_.measure + "@" + change.first_bad;
        if (std::find(s_.sent.begin(), s_.sent.end(), key) != s_.sent.end()) continue;
        const fs::path mail = o_.mail_dir / change.mail;
        const RegularFileRead got =
            read_regular_file_at(AT_FDCWD, mail.c_str(), kMaxMailBytes, false);
        if (got.refusal != RegularFileRead::Refusal::none) {
            warn("contest track: " + printable(mail.string()) + ": " + got.why() + ": not sent");
            continue;
        }
        s_.sent.push_back(key);
        save();
        std::vector<std::string> argv = o_.sendmail;
        argv.insert(argv.end(), {"-oi", "--"});
        argv.insert(argv.end(), o_.send_to.begin(), o_.send_to.end());
        std::string why;
        try {
            SpawnOptions so;
            so.in = StdStream::pipe();
            so.log_to(o_.folder / "sendmail.log");
            Spawned child = spawn_with_pipes(argv, so);
            const bool written = write_to_mail_program(
                child.in.get(), "To: " + join(o_.send_to, ", ") + "\n" + got.text);
            child.in.reset();
            const int status = wait_for_exit(child.pid);
            if (status != 0)
                why = describe_wait_status(status);
            else if (!written)
                why = "it did not take the whole mail";
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (why.empty()) {
            progress_.note("contest track: " + printable(change.mail) + " sent to " +
                           printable(join(o_.send_to, ", ")));
            continue;
        }
        s_.sent.pop_back();
        save();
        warn("contest track: sending " + printable(change.mail) + " with " +
             printable(join(o_.sendmail, " ")) + ": " + printable(why) + " (see " +
             printable((o_.folder / "sendmail.log").string()) + "); the mail is in " +
             printable(o_.mail_dir.string()) + ", and the next run sends it");
    }
}

}  // namespace contest::track

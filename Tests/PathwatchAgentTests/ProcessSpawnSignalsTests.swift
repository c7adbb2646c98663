import Glibc
import PathwatchTestSupport
import Testing

@testable import PathwatchPluginHost

/// A program the agent starts begins with no signal blocked and every signal at its default
/// action, whatever the starting thread blocked or the agent ignores. libdispatch's threads block
/// nearly every signal; a plug-in child started from one ignored the SIGTERM its plug-in sent its
/// own group, and survived what should have ended it.
@Suite(.onItsOwnThread) struct ProcessSpawnSignalsTests {
    /// A /proc/PID/status mask line ("SigBlk", "SigIgn") as a number.
    static func mask(_ name: String, of pid: pid_t) -> UInt64? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }) else { return nil }
        return UInt64(line.split(separator: "\t").last ?? "", radix: 16)
    }

    @Test func aChildStartedFromAThreadThatBlocksSignalsStartsWithNoneBlockedOrIgnored() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] { sigaddset(&blocked, signal) }
        var before = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &before)
        let ignoredBefore = Glibc.signal(SIGPIPE, SIG_IGN)
        let started = ProcessSpawn(
            executable: "/bin/sleep", argv: ["/bin/sleep", "30"], environment: [], descriptors: []
        ).start()
        Glibc.signal(SIGPIPE, ignoredBefore)
        pthread_sigmask(SIG_SETMASK, &before, nil)
        let pid = try started.get()
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        // posix_spawn returns once the program runs (glibc waits for the exec): its masks are final.
        #expect(Self.mask("SigBlk", of: pid) == 0)
        // Signals 1–31; glibc keeps two real-time signals of its own (32 and 33) for itself.
        #expect(Self.mask("SigIgn", of: pid).map { $0 & 0x7FFF_FFFF } == 0)
        // And so SIGTERM ends it, as it ends any program.
        kill(pid, SIGTERM)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7F == SIGTERM, "wait status \(status)")
    }
}

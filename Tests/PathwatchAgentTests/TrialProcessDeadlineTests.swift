import Foundation
import PathwatchAgent
import PathwatchTestSupport
import Testing

/// The time a trial allows is the child's: a reader slowed by its own work (a sample of
/// megabytes parsed on a loaded host) does not make a child that finished "time out", and a
/// child that hangs is still killed when its time is up.
@Suite(.onItsOwnThread) struct TrialProcessDeadlineTests {
    static let report: Int32 = 3

    func spawn(_ script: String) throws -> TrialProcess {
        try TrialProcess.spawn("/bin/sh", arguments: ["-c", script], extraDescriptor: Self.report)
    }

    @Test func aReaderSlowerThanTheDeadlineLeavesAFinishedChildOnTime() throws {
        let child = try spawn("echo one >&3; echo two >&3; exit 0")
        var lines: [String] = []
        // The reader's work, twice the time allowed, stands in for parsing on a loaded host.
        let collected = child.collect(timeoutSeconds: 0.2, extraLimit: 1 << 20) { chunk in
            lines.append(String(decoding: chunk, as: UTF8.self))
            usleep(400_000)
        }
        #expect(!collected.timedOut)
        #expect(collected.ending == .exited(0))
        #expect(lines.joined() == "one\ntwo\n")
    }

    @Test func aChildThatHangsIsKilledWhenItsTimeIsUp() throws {
        let child = try spawn("echo started >&3; exec sleep 60")
        var seen = ""
        let collected = child.collect(timeoutSeconds: 0.5, extraLimit: 1 << 20) { chunk in
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(collected.timedOut)
        #expect(collected.ending == .signaled(SIGKILL))
        #expect(seen == "started\n")
    }

    /// A descendant that keeps a pipe open after the child exits is not waited for past the
    /// deadline, and the child's end is not called a timeout.
    @Test func aDescendantHoldingAPipeIsNotWaitedFor() throws {
        let child = try spawn("sleep 60 & echo $! >&3; exit 0")
        var seen = ""
        let collected = child.collect(timeoutSeconds: 0.5, extraLimit: 1 << 20) { chunk in
            seen += String(decoding: chunk, as: UTF8.self)
        }
        let descendant = try #require(pid_t(seen.trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(descendant, SIGKILL)
        #expect(!collected.timedOut)
        #expect(collected.ending == .exited(0))
    }
}

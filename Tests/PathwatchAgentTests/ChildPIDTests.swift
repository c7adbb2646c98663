import Glibc
import PathwatchTestSupport
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// A child's pid is signalled until the child is reaped (after, the pid may be another
/// process's, and `kill` sends nothing), and the reap gives the child's wait status.
@Suite(.onItsOwnThread) struct ChildPIDTests {
    static func spawnSleep() throws -> pid_t {
        var pid: pid_t = 0
        let argv = ["/bin/sleep", "30"]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, &cArgs, environ) == 0)
        return pid
    }

    @Test func aKillBeforeTheReapReachesTheChild() throws {
        let child = ChildPID(try Self.spawnSleep())
        child.kill()
        let status = child.reap()
        // Killed by SIGKILL: the low seven bits of the wait status.
        #expect(status & 0x7F == SIGKILL, "wait status \(status)")
    }

    @Test func aChildThatExitsOnItsOwnIsReapedWithItsStatus() throws {
        var pid: pid_t = 0
        let argv = ["/bin/sh", "-c", "exit 3"]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        try #require(posix_spawn(&pid, "/bin/sh", nil, nil, &cArgs, environ) == 0)
        let child = ChildPID(pid)
        let status = child.reap()
        #expect(status & 0x7F == 0 && (status >> 8) & 0xFF == 3, "wait status \(status)")
    }
}

import Glibc
import PathwatchCommands
import Testing

/// `pathwatch reload` finds its agent by the real uid in /proc/PID/status, not by the owner of
/// /proc/PID, which is root for a process that is not dumpable.
@Suite struct RunningAgentsTests {
    @Test func theRealUIDIsTheFirstOfTheUidLine() {
        let status =
            "Name:\tpathwatch\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t998\t0\t0\t998\nGid:\t998\t998\t998\t998\n"
        #expect(RunningAgents.realUID(ofStatus: Array(status.utf8)) == 998)
    }

    @Test func aStatusWithoutANumberedUidLineHasNone() {
        #expect(RunningAgents.realUID(ofStatus: Array("Name:\tx\nGid:\t1\t1\t1\t1\n".utf8)) == nil)
        #expect(RunningAgents.realUID(ofStatus: Array("Uid:\t\nGid:\t1\n".utf8)) == nil)
        #expect(RunningAgents.realUID(ofStatus: Array("Uid:\tabc\t0\t0\t0\n".utf8)) == nil)
        // A line that only begins alike is not it.
        #expect(RunningAgents.realUID(ofStatus: Array("XUid:\t5\t5\t5\t5\n".utf8)) == nil)
        #expect(RunningAgents.realUID(ofStatus: []) == nil)
    }

    @Test func thisProcessesOwnStatusNamesItsUser() throws {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let n = read(fd, &buffer, buffer.count)
        try #require(n > 0)
        #expect(RunningAgents.realUID(ofStatus: Array(buffer[0..<n])) == getuid())
    }
}

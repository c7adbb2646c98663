import Glibc
import Testing

@testable import PathwatchBase

/// The agent's pipes are close-on-exec from the start (no plug-in child ever inherits one), and
/// non-blocking when asked; the kernel reads these flags at exec and at each read and write.
struct PipeTests {
    @Test(arguments: [false, true]) func bothEndsAreCloseOnExecAndBlockAsAsked(nonBlocking: Bool) throws {
        let pipe = try #require(makePipe(nonBlocking: nonBlocking))
        defer {
            close(pipe.read)
            close(pipe.write)
        }
        for fd in [pipe.read, pipe.write] {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "descriptor \(fd) is inherited at exec")
            #expect(
                (fcntl(fd, F_GETFL) & O_NONBLOCK != 0) == nonBlocking,
                "descriptor \(fd): O_NONBLOCK should be \(nonBlocking)")
        }
        var byte: UInt8 = 7
        #expect(write(pipe.write, &byte, 1) == 1)
        byte = 0
        #expect(read(pipe.read, &byte, 1) == 1 && byte == 7)
    }
}

import Foundation
import PathwatchTestSupport
import Testing

/// The stdout sink on SIGTERM with documents of 100 MB going to a reader slower than the agent:
/// a line is written whole or not at all, so the last thing the reader gets is a newline, even
/// when finishing the line takes longer than the 5 s every sink has to deliver what it holds. And
/// the agent still ends within the service unit's TimeoutStopSec (20 s).
@Suite(.onItsOwnThread) struct StdoutStopTests {
    /// Reads a pipe at a bounded rate on a thread of its own, keeping counts, not the bytes.
    final class SlowReader: @unchecked Sendable {
        private let lock = NSLock()
        private var lines = 0
        private var sinceNewline = 0
        private var linesNotStartingWithABrace = 0
        private var finished = false

        init(_ handle: FileHandle, bytesPerSecond: Double) {
            Thread.detachNewThread { [self] in
                var atLineStart = true
                while true {
                    let data = handle.readData(ofLength: 256 * 1024)
                    if data.isEmpty { break }
                    // memchr over the chunk: a byte-by-byte loop in a debug build is slower than
                    // the rate asked for, and the test would measure the reader instead.
                    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                        let base = raw.baseAddress!
                        var offset = 0
                        lock.lock()
                        defer { lock.unlock() }
                        while offset < raw.count {
                            if atLineStart && raw[offset] != UInt8(ascii: "{") { linesNotStartingWithABrace += 1 }
                            atLineStart = false
                            guard let found = memchr(base + offset, Int32(UInt8(ascii: "\n")), raw.count - offset)
                            else {
                                sinceNewline += raw.count - offset
                                break
                            }
                            let newline = base.distance(to: UnsafeRawPointer(found))
                            lines += 1
                            sinceNewline = 0
                            atLineStart = true
                            offset = newline + 1
                        }
                    }
                    // Each chunk takes its time: no credit saved up while the agent had nothing to say.
                    usleep(UInt32(Double(data.count) / bytesPerSecond * 1e6))
                }
                lock.lock()
                finished = true
                lock.unlock()
            }
        }

        /// Whole lines read, bytes read of the line in progress, lines that did not start as a
        /// JSON object, and whether the pipe reached its end.
        var counts: (lines: Int, partial: Int, malformed: Int, finished: Bool) {
            lock.lock()
            defer { lock.unlock() }
            return (lines, sinceNewline, linesNotStartingWithABrace, finished)
        }
    }

    @Test func sigtermNeverTearsAHundredMegabyteLine() throws {
        let dir = try FixturePlugins.folderWithTestProbe()
        defer { TestEnvironment.removeTemporaryDirectory(dir) }
        // 25,000 checks of a 4,000-byte message: a document of about 104 MB, one every 10 s.
        let config = try writeConfig(
            """
            {"agent": {"plugin_dirs": ["\(dir.path)"], "interval": "10s", "isolation": "inline"},
             "probes": [{"id": "big", "plugin": "testprobe", "max_observations": 100000,
                         "config": {"checks": 25000, "message_bytes": 4000}}],
             "sinks": [{"type": "stdout", "format": "json", "on": "every"}]}
            """, in: dir)
        for round in 1...2 {
            let process = Process()
            let argv = Unprivileged.pathwatch(["run", "--config", config.path])
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = argv
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // 12.5 MB/s: the rest of a line takes about 8 s, longer than the 5 s drain and well
            // inside the 15 s a stop gives the line in progress.
            let reader = SlowReader(output.fileHandleForReading, bytesPerSecond: 12.5e6)
            try? output.fileHandleForWriting.close()
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // Mid-line: the first document read whole and a few MB of the second.
            let midLine = waitUntil(timeout: 120) { reader.counts.lines >= 1 && reader.counts.partial > 4_000_000 }
            #expect(midLine, "round \(round): \(reader.counts)")
            let stopAsked = Date()
            kill(process.processIdentifier, SIGTERM)
            #expect(waitUntil(timeout: 25) { !process.isRunning }, "round \(round): still running 25 s after SIGTERM")
            let stopTook = Date().timeIntervalSince(stopAsked)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "round \(round)")
            #expect(waitUntil(timeout: 30) { reader.counts.finished })
            let counts = reader.counts
            #expect(
                counts.partial == 0,
                "round \(round): the last line was torn after \(counts.partial) bytes; stop took \(stopTook) s")
            #expect(counts.malformed == 0, "round \(round): \(counts)")
            #expect(stopTook < 20, "round \(round): the stop took \(stopTook) s, more than the unit's TimeoutStopSec")
        }
    }
}

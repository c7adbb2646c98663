import Dispatch
import Foundation
import Glibc
import PathwatchJSON
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchAgent
@testable import PathwatchPluginHost

/// The writer between the agent and a plug-in child: frames queued from many threads reach the
/// other end whole, each thread's in the order it queued them; a peer that goes away is said
/// once; what was queued before `finish` is written before its job runs; held frames go with the
/// next write, or alone once their bound is up.
@Suite(.onItsOwnThread) struct FrameOutboxTests {
    /// A connected socketpair: the outbox's end, and the reading end.
    static func pair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    /// Reads routed frames from `fd` until its end: how many came from each writing thread, or
    /// the first frame out of its thread's order.
    static func readFrames(from fd: Int32, threads: Int) -> Result<[Int], FrameOrderError> {
        var next = [Int](repeating: 0, count: threads)
        var buffer = FrameBuffer()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return .success(next) }
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            while case .frame(let instance, let body) = buffer.next() {
                let frame = try? JSONParser.parse(bytes: body)
                let thread = Int(instance) - 1
                guard frame?["thread"]?.numberValue == Double(thread),
                    frame?["n"]?.numberValue == Double(next[thread])
                else { return .failure(FrameOrderError(thread: thread, expected: next[thread])) }
                next[thread] += 1
            }
        }
    }

    struct FrameOrderError: Error { var thread: Int, expected: Int }

    @Test func framesFromManyThreadsArriveWholeAndInEachThreadsOrder() throws {
        let (write, readEnd) = try Self.pair()
        defer { close(readEnd) }
        let threads = 4
        let each = 500
        // Read beside the writers, as the other end does: the socket holds a few hundred frames.
        let outcome = Mutex<Result<[Int], FrameOrderError>?>(nil)
        let readDone = DispatchSemaphore(value: 0)
        let reader = Thread {
            outcome.withLock { $0 = Self.readFrames(from: readEnd, threads: threads) }
            readDone.signal()
        }
        reader.start()
        let outbox = FrameOutbox(socket: write) { Issue.record("writing failed") }
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for n in 0..<each {
                let body = Frames.body(["thread": .number(Double(thread)), "n": .number(Double(n))])
                outbox.enqueue(Frames.header(body: body, instance: UInt32(thread + 1))!, body)
            }
        }
        let closed = DispatchSemaphore(value: 0)
        outbox.finish {
            _ = shutdown(write, Int32(SHUT_WR))
            closed.signal()
        }
        #expect(closed.wait(timeout: .now() + 10) == .success, "the job after the last frame never ran")
        try #require(readDone.wait(timeout: .now() + 10) == .success, "the reader never saw the end")
        switch outcome.withLock({ $0 }) {
        case .success(let counts)?: #expect(counts == [Int](repeating: each, count: threads), "frames lost: \(counts)")
        case .failure(let error)?:
            Issue.record("thread \(error.thread)'s frame \(error.expected) out of order or garbled")
        case nil: Issue.record("nothing read")
        }
        close(write)
    }

    @Test func aPeerThatWentAwayIsSaidOnce() throws {
        let (write, read) = try Self.pair()
        close(read)
        let failures = Mutex(0)
        let outbox = FrameOutbox(socket: write) { failures.withLock { $0 += 1 } }
        for _ in 0..<100 {
            let body = Frames.body(["call": "sample"])
            outbox.enqueue(Frames.header(body: body)!, body)
        }
        let done = DispatchSemaphore(value: 0)
        outbox.finish { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(failures.withLock { $0 } == 1)
        #expect(!outbox.enqueue([0, 0, 0, 0]), "a finished outbox took a frame")
        close(write)
    }

    /// A socketpair that keeps each write a record of its own: the reader counts the writes.
    static func packetPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    /// Each record read from `fd` until its end, as the frames' `n`, or nil for one not a frame.
    static func records(from fd: Int32) -> [[Int]?] {
        var records: [[Int]?] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 17)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return records }
            var buffer = FrameBuffer()
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            var numbers: [Int]? = []
            while case .frame(_, let body) = buffer.next() {
                guard let number = (try? JSONParser.parse(bytes: body))?["n"]?.numberValue else {
                    numbers = nil
                    break
                }
                numbers?.append(Int(number))
            }
            records.append(numbers)
        }
    }

    /// Finishes `outbox` with the end of `write`'s side as its last job: whether that job ran.
    static func finished(_ outbox: FrameOutbox, endingWith write: Int32) -> Bool {
        let closed = DispatchSemaphore(value: 0)
        outbox.finish {
            _ = shutdown(write, Int32(SHUT_WR))
            closed.signal()
        }
        return closed.wait(timeout: .now() + 10) == .success
    }

    /// Holds a frame for each of `numbers`, in order.
    static func hold(_ numbers: Range<Int>, in outbox: FrameOutbox) {
        for n in numbers {
            let (header, body) = frame(n)
            #expect(outbox.enqueueHeld(header, body))
        }
    }

    static func frame(_ n: Int) -> ([UInt8], [UInt8]) {
        let body = Frames.body(["n": .number(Double(n))])
        return (Frames.header(body: body, instance: 1)!, body)
    }

    @Test func heldFramesGoWithTheNextWriteInOneWrite() throws {
        let (write, read) = try Self.packetPair()
        defer { close(read) }
        // A bound no test waits for: only the next write sends them.
        let outbox = FrameOutbox(socket: write, holdNanoseconds: 600_000_000_000) { Issue.record("writing failed") }
        Self.hold(0..<100, in: outbox)
        var pending = pollfd(fd: read, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pending, 1, 50) == 0, "a held frame was written on its own")
        let (header, body) = Self.frame(100)
        outbox.enqueue(header, body)
        _ = shutdown(write, Int32(SHUT_WR))
        // The hundred held and the one written: one write, in the order they were queued.
        #expect(Self.records(from: read) == [Array(0...100)])
        close(write)
    }

    @Test func aHeldFrameGoesAloneOnceItsBoundIsUp() throws {
        let (write, read) = try Self.packetPair()
        defer { close(read) }
        let outbox = FrameOutbox(socket: write, holdNanoseconds: 20_000_000) { Issue.record("writing failed") }
        Self.hold(0..<3, in: outbox)
        // Nothing else is written: the bound sends them (waited for far beyond it, for a busy machine).
        var pending = pollfd(fd: read, events: Int16(POLLIN), revents: 0)
        try #require(poll(&pending, 1, 10_000) == 1, "held frames were never written")
        #expect(Self.finished(outbox, endingWith: write))
        #expect(Self.records(from: read).compactMap { $0 }.flatMap { $0 } == [0, 1, 2])
        close(write)
    }

    @Test func finishWritesWhatIsHeldBeforeItsJob() throws {
        let (write, read) = try Self.packetPair()
        defer { close(read) }
        let outbox = FrameOutbox(socket: write, holdNanoseconds: 600_000_000_000) { Issue.record("writing failed") }
        Self.hold(0..<5, in: outbox)
        #expect(Self.finished(outbox, endingWith: write), "the job after the held frames never ran")
        #expect(Self.records(from: read) == [[0, 1, 2, 3, 4]])
        #expect(!outbox.enqueueHeld([0, 0, 0, 0]), "a finished outbox held a frame")
        close(write)
    }
}

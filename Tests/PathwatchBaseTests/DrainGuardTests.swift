import Foundation
import PathwatchTestSupport
import Synchronization
import Testing

@testable import PathwatchBase

/// The rule for a descriptor its handler does not drain (DrainGuard): throttled only after a
/// whole second and at least 100 calls each of which left it readable with no progress; released
/// as soon as it is unready or a call makes progress. On a watching thread: a descriptor never
/// read is served about once a second once throttled, and one that is read to EAGAIN, however
/// busy, is never throttled.
@Suite(.onItsOwnThread) struct DrainGuardTests {
    static let second: Int64 = 1_000_000_000

    @Test func itTakesAWholeSecondAndAHundredCallsToThrottle() {
        var rule = DrainGuard()
        // 1,000 calls in half a second: many, but not for long enough.
        for i in 0..<1_000 {
            #expect(rule.served(stillReadable: true, progressed: false, at: Int64(i) * 500_000) == nil)
        }
        // A second of calls, but only 99 of them.
        var slow = DrainGuard()
        for i in 0..<99 {
            #expect(slow.served(stillReadable: true, progressed: false, at: Int64(i) * Self.second / 90) == nil)
        }
        #expect(slow.served(stillReadable: true, progressed: false, at: 2 * Self.second) == .throttled)
        #expect(slow.throttled && slow.nextServe == 3 * Self.second)
        // The first: it goes on past the second.
        #expect(rule.served(stillReadable: true, progressed: false, at: Self.second) == .throttled)
    }

    @Test func oneUnreadyCallOrProgressStartsTheCountAgain() {
        var rule = DrainGuard()
        for i in 0..<150 { _ = rule.served(stillReadable: true, progressed: false, at: Int64(i) * Self.second / 200) }
        #expect(rule.served(stillReadable: false, progressed: false, at: Self.second * 3 / 4) == nil)
        for i in 0..<150 {
            #expect(
                rule.served(stillReadable: true, progressed: false, at: Self.second + Int64(i) * Self.second / 200)
                    == nil)
        }
        #expect(rule.served(stillReadable: true, progressed: true, at: Self.second * 3 / 2) == nil)
        for i in 0..<150 {
            #expect(
                rule.served(stillReadable: true, progressed: false, at: 2 * Self.second + Int64(i) * Self.second / 200)
                    == nil)
        }
        #expect(!rule.throttled)
    }

    @Test func aThrottledDescriptorIsReleasedWhenUnreadyOrWhenACallProgresses() {
        var rule = DrainGuard()
        for i in 0...200 { _ = rule.served(stillReadable: true, progressed: false, at: Int64(i) * Self.second / 100) }
        #expect(rule.throttled)
        // Still readable after its turn: the next turn a second later.
        #expect(rule.served(stillReadable: true, progressed: false, at: 5 * Self.second) == nil)
        #expect(rule.nextServe == 6 * Self.second)
        #expect(rule.foundUnready() == .released)
        #expect(!rule.throttled)
        #expect(rule.foundUnready() == nil, "released twice")
        for i in 0...200 {
            _ = rule.served(stillReadable: true, progressed: false, at: 10 * Self.second + Int64(i) * Self.second / 100)
        }
        #expect(rule.served(stillReadable: true, progressed: true, at: 13 * Self.second) == .released)
    }

    /// A pipe holding a byte its handler never reads: throttled after about a second, then served
    /// about once a second; released once the handler reads it.
    @Test func anUndrainedPipeIsServedOnceASecondUntilItIsRead() throws {
        let thread = SerialThread(name: "pw-test-drain", watchingDescriptors: true)
        defer { thread.finish() }
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        let calls = Atomic<Int>(0)
        /// When each call came (monotonic nanoseconds), in order.
        let callTimes = Mutex<[Int64]>([])
        let drain = Atomic<Bool>(false)
        let changes = Mutex<[DrainGuard.Change]>([])
        let read = fds[0]
        thread.watch(
            read,
            onReadable: {
                callTimes.withLock { $0.append(Int64(monotonicNanoseconds())) }
                calls.add(1, ordering: .relaxed)
                if drain.load(ordering: .relaxed) {
                    var byte: UInt8 = 0
                    _ = Glibc.read(read, &byte, 1)
                }
            }, onClosed: {}, onUndrained: { change in changes.withLock { $0.append(change) } })
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(waitUntil(timeout: 20) { changes.withLock { $0 } == [.throttled] }, "\(changes.withLock { $0 })")
        #expect(calls.load(ordering: .relaxed) >= DrainGuard.callsBeforeThrottle)
        // Jobs still run promptly beside a throttled descriptor.
        #expect(thread.sync { 5 } == 5)
        // A rate: once throttled, the next call comes a second after the one that throttled it.
        // Spinning, there would be hundreds of thousands. That call is the event waited for: it
        // drains the descriptor, which releases it.
        let before = calls.load(ordering: .relaxed)
        drain.store(true, ordering: .relaxed)
        #expect(
            waitUntil(timeout: 5) { changes.withLock { $0 } == [.throttled, .released] }, "\(changes.withLock { $0 })")
        let served = calls.load(ordering: .relaxed) - before
        let turn = callTimes.withLock { $0.count > before ? Double($0[before] - $0[before - 1]) / 1e9 : 0 }
        // One call; two if a turn fell between counting and draining.
        #expect((1...2).contains(served), "\(served) calls while throttled")
        #expect((0.8...2).contains(turn), "the throttled call came \(turn) s after the one before")
        // Served at once again: a new byte is read without waiting for a turn.
        let after = calls.load(ordering: .relaxed)
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(waitUntil(timeout: 0.5, interval: 0.001) { calls.load(ordering: .relaxed) > after })
    }

    /// A busy descriptor that its handler reads to EAGAIN, written to every few hundred
    /// microseconds for two and a half seconds (thousands of calls, many of them finding more
    /// already there), is never throttled: a pipe (a call's progress shows in the bytes waiting)
    /// and a datagram socket, as a netlink socket is (the kernel reports only the size of the next
    /// datagram, all of the same size here: no progress to see, only that it went unready).
    @Test(arguments: ["pipe", "datagrams"])
    func aBusyDescriptorThatIsDrainedIsNeverThrottled(kind: String) throws {
        let thread = SerialThread(name: "pw-test-busy", watchingDescriptors: true)
        defer { thread.finish() }
        var fds: [Int32] = [-1, -1]
        if kind == "pipe" {
            try #require(pipe(&fds) == 0)
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        } else {
            try #require(socketpair(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0, &fds) == 0)
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        }
        defer {
            close(fds[0])
            close(fds[1])
        }
        let calls = Atomic<Int>(0)
        let changes = Mutex<[DrainGuard.Change]>([])
        let (read, write) = (fds[0], fds[1])
        thread.watch(
            read,
            onReadable: {
                calls.add(1, ordering: .relaxed)
                var buffer = [UInt8](repeating: 0, count: 4_096)
                while Glibc.read(read, &buffer, buffer.count) > 0 {}
            }, onClosed: {}, onUndrained: { change in changes.withLock { $0.append(change) } })
        // The writer runs for a fixed time: what is tested is that nothing happens meanwhile.
        let until = Date().addingTimeInterval(2.5)
        while Date() < until {
            var value: UInt64 = 1
            _ = Glibc.write(write, &value, 8)
            usleep(300)
        }
        #expect(
            calls.load(ordering: .relaxed) > 2 * DrainGuard.callsBeforeThrottle,
            "the writer hardly wrote: \(calls.load(ordering: .relaxed)) calls")
        #expect(changes.withLock { $0 }.isEmpty)
    }
}

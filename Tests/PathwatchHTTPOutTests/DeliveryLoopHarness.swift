import CCurlShims
import Foundation
import Logging
import PathwatchAgent
import PathwatchClockTesting
import PathwatchJSON
import PathwatchQueue
import PathwatchSinkKit
import PathwatchTestSupport
import Synchronization

@testable import PathwatchHTTPOut

/// The delivery loop of a pushing sink on a manual clock: the real `PushDeliverer` and a real
/// queue in a temporary folder, a format of one record per request, and a poster that answers
/// as the test scripts it and notes each attempt with the clock's time. The test moves the clock
/// from one wait of the loop to the next, so a backoff of minutes takes no time at all.
final class DeliveryLoopHarness {
    static let second: UInt64 = 1_000_000_000

    let clock = ManualClock()
    let poster: ScriptedPoster
    let health: DeliveryHealth
    let queue: DurableQueue
    private let deliverer: PushDeliverer<OneRecordFormat>
    private let feed = NoFeed()
    private let folder: URL

    /// `records` (`r1`, `r2`, …) are queued before the loop starts; `answers` are the poster's
    /// first answers, in order, and every later attempt gets a 200. The URL is a literal
    /// address off loopback, so delivery holds while the path is unsatisfied.
    init(
        url: String = "http://192.0.2.10/in", retry: RetryPolicy, minInterval: UInt64 = 0, records: Int,
        answers: [HTTPResponse]
    ) throws {
        guard let target = HTTPTarget(url) else { throw TestFailure("not a URL: \(url)") }
        folder = try TestEnvironment.makeTemporaryDirectory()
        queue = try DurableQueue(folder: folder.path + "/queue", limits: .init(records: 100, bytes: 1 << 20))
        _ = try queue.append(
            (1...records).map {
                QueueRecord(kind: 1, id: "r\($0)", enqueuedAtMilliseconds: 0, body: Array("r\($0)".utf8))
            })
        poster = ScriptedPoster(clock: clock, answers: answers)
        let logger = AgentLogger(logger: Logger(label: "delivery-test"), redactor: SecretRedactor())
        health = DeliveryHealth(type: "test", noun: "records", target: target, logger: logger, clock: clock)
        let context = PushContext(name: "test \(url)", noun: "records", logger: logger, health: health, clock: clock)
        var spec = PushSpec(
            type: "test", noun: "records",
            post: HTTPPostDescription(
                url: url, contentType: "text/plain", headers: [], tls: HTTPTLS(),
                timeout: ConfigDuration(nanoseconds: 1_000_000_000)),
            retry: retry, limits: queue.limits, folderKey: url)
        spec.minInterval = minInterval
        let poster = poster
        deliverer = PushDeliverer(format: OneRecordFormat(spec: spec), context: context) { _, _ in poster }
        deliverer.start(delivering: queue, for: feed)
    }

    deinit {
        deliverer.thread.stop(waitingUpTo: 5)
        deliverer.thread.finish()
        queue.close()
        TestEnvironment.removeTemporaryDirectory(folder)
    }

    var phase: DeliveryThread.Phase { deliverer.thread.phase }

    /// Tells the loop the path's state, as a batch would.
    func notePath(unsatisfied: Bool) { deliverer.thread.notePath(unsatisfied: unsatisfied) }

    /// The `number`th attempt (from 1), once the loop has made it.
    func attempt(_ number: Int) throws -> ScriptedPoster.Attempt {
        let attempts = waitUntilValue { poster.attempts.count >= number ? poster.attempts : nil }
        guard let attempts else {
            throw TestFailure("the loop made \(poster.attempts.count) attempts, not \(number); phase \(phase)")
        }
        return attempts[number - 1]
    }

    /// The instant the loop waits for, once it waits for one (the soonest, if it scheduled more).
    func awaitedDeadline() throws -> UInt64 {
        guard let deadline = waitUntilValue({ clock.deadlines.first }) else {
            throw TestFailure("the loop waits for no instant; phase \(phase)")
        }
        return deadline
    }

    /// Waits until the loop is in `phase`.
    func await(_ wanted: DeliveryThread.Phase) throws {
        guard waitUntil({ phase == wanted }) else { throw TestFailure("the loop is \(phase), not \(wanted)") }
    }
}

/// Answers attempts from a script, then with 200; notes when each came and what it carried.
final class ScriptedPoster: HTTPPosting, Sendable {
    struct Attempt {
        var at: UInt64
        var body: String
    }

    private let clock: ManualClock
    private let state: Mutex<(answers: [HTTPResponse], attempts: [Attempt])>

    init(clock: ManualClock, answers: [HTTPResponse]) {
        self.clock = clock
        state = Mutex((answers, []))
    }

    var attempts: [Attempt] { state.withLock { $0.attempts } }

    func post(_ body: [UInt8], extraHeaders: [String], urlSuffix: String) -> HTTPResponse {
        let now = clock.monotonicNow
        return state.withLock { s in
            s.attempts.append(Attempt(at: now, body: String(decoding: body, as: UTF8.self)))
            return s.answers.isEmpty ? HTTPResponse(status: 200) : s.answers.removeFirst()
        }
    }

    static func status(_ status: Int, retryAfter: String? = nil) -> HTTPResponse {
        HTTPResponse(status: status, retryAfter: retryAfter)
    }

    /// No connection at all: libcurl's answer when the receiver is down.
    static let refusedConnection = HTTPResponse(curlCode: CURLE_COULDNT_CONNECT)
}

/// One queue record per request; its body is the record's.
struct OneRecordFormat: PushFormat {
    struct Encoder: RecordEncoder {
        mutating func records(for batch: SinkBatch) -> [QueueRecord] { [] }
        mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord]) {}
    }

    struct Request: PushRequest {
        var entries: [QueueEntry]
        var body: [UInt8]
        var description: String { "record \(String(decoding: body, as: UTF8.self))" }
    }

    struct Reader: RequestReader {
        mutating func next(from queue: DurableQueue, retrying: Int?) throws(QueueError) -> NextRequest<Request> {
            guard let head = try queue.head() else { return .empty }
            return .send(Request(entries: [head.entry], body: head.record.body))
        }

        func attempt(_ request: Request) throws(PushProblem) -> PushAttempt { PushAttempt(body: request.body) }
    }

    let spec: PushSpec
    func makeEncoder(_ context: PushContext) -> Encoder { Encoder() }
    func makeReader(_ context: PushContext) -> Reader { Reader() }
}

/// A feed with nothing of its own to add.
final class NoFeed: DeliveryFeed {
    var nextDue: UInt64? { nil }
    func queueDueRecords() {}
    func offerHeldAgain() {}
}

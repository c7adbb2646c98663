import PathwatchQueue
import PathwatchSinkKit

/// What a pushing sink is besides the delivery it shares with the others (`PushDelivery`): its
/// settings reduced to what the layer needs, and its two halves of a format, the
/// `RecordEncoder` (batches into queue records, on the intake thread) and the `RequestReader`
/// (queue records into requests, on the delivery thread). A new pushing sink is these three and
/// a `SinkKind`.
package protocol PushFormat: Sendable {
    associatedtype Encoder: RecordEncoder
    associatedtype Reader: RequestReader
    var spec: PushSpec { get }
    /// Made on the intake thread once the queue is open (one per sink).
    func makeEncoder(_ context: PushContext) -> Encoder
    /// Made on the delivery thread when delivery starts (one per sink).
    func makeReader(_ context: PushContext) -> Reader
}

/// The settings the layer reads: where to POST and how, how much to keep, how to pace.
package struct PushSpec: Sendable {
    /// The sink's type (`webhook`), which names its status entry, threads and queue folder.
    package var type: String
    /// Its threads' names: `pw-<stem>-in` and `pw-<stem>-out` (15 bytes at most in all).
    package var threadStem: String
    /// What its records are called in the log and the status (`payloads`, `reports`).
    package var noun: String
    package var post: HTTPPostDescription
    package var retry: RetryPolicy
    /// No request starts before this long (nanoseconds) from the start of the one before.
    package var minInterval: UInt64 = 0
    package var limits: DurableQueue.Limits
    /// What identifies the receiver's stream, hashed into the queue folder's name.
    package var folderKey: String
    /// The name earlier runs gave the folder, when it differs: a folder found under it (and none
    /// under the current name) is renamed before the queue first opens.
    package var formerFolderName: String?
    /// Batches encoded into one append (one fdatasync).
    package var batchesPerAppend = 512
    /// Batches parked for the intake thread at most; past it the oldest are dropped and counted
    /// (only when the state disk stalls for long).
    package var maxParkedBatches = 10_000
    /// Encoded records kept in memory while the state disk refuses appends; past it the oldest
    /// are dropped and counted.
    package var maxHeldRecords = 10_000
    /// The sink wants every report as it comes (`Sink.takesEveryReport`), not the whole state
    /// about once a tick (DocumentPacing).
    package var takesEveryReport = false
    /// What carries a request to the receiver, when not HTTP (`SMTPSender.connector` for mail).
    package var connect: HTTPConnector?

    package init(
        type: String, noun: String, post: HTTPPostDescription, retry: RetryPolicy, limits: DurableQueue.Limits,
        folderKey: String
    ) {
        self.type = type
        self.threadStem = type
        self.noun = noun
        self.post = post
        self.retry = retry
        self.limits = limits
        self.folderKey = folderKey
    }

    /// The URL's parts; decoding already refused a URL this cannot parse.
    package var target: HTTPTarget { HTTPTarget(post.url) ?? HTTPTarget("http://invalid/")! }

    package var folderName: String { QueueFolder.name(type: type, key: folderKey) }
}

/// Turns what the agent reports into queue records, in order. Used on the intake thread only,
/// so it may keep state (what it last told a receiver, the pace of its own series).
package protocol RecordEncoder {
    mutating func records(for batch: SinkBatch) -> [QueueRecord]
    /// Records owed without a new batch (Alertmanager's re-sends of firing alerts); usually none.
    mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord]
    /// Monotonic time when `dueRecords` will next have something, or nil.
    var nextDue: UInt64? { get }
    /// Says what the queue did with an append of `records` (dropped old ones for room,
    /// refused one too large), in the sink's own words.
    mutating func noteAppend(_ result: DurableQueue.AppendResult, of records: [QueueRecord])
    /// What a fresh queue segment starts with (`DurableQueue.append(_:preamble:)`); usually nothing.
    func segmentPreamble() -> [UInt8]
    /// An append failed: its records are held in memory, and may reach the disk later or never.
    mutating func noteAppendFailed()
}

extension RecordEncoder {
    package mutating func dueRecords(at now: WallTime, monotonic: UInt64) -> [QueueRecord] { [] }
    package var nextDue: UInt64? { nil }
    package func segmentPreamble() -> [UInt8] { [] }
    package mutating func noteAppendFailed() {}
}

/// One request read from the head of the queue.
package protocol PushRequest: CustomStringConvertible {
    /// The records it carries, acknowledged or given up on together.
    var entries: [QueueEntry] { get }
    /// For the log line of a refusal for good (`description` with what else helps).
    var refusalDescription: String { get }
}

extension PushRequest {
    package var count: Int { entries.count }
    package var refusalDescription: String { description }
}

/// What the head of the queue holds for the deliverer.
package enum NextRequest<Request: PushRequest> {
    case send(Request)
    /// Records given up on before sending (a kind this release cannot read, too old to matter),
    /// already said and counted by the reader; completed as unreadable.
    case drop([QueueEntry])
    /// Records the reader delivered already (ahead of the ones before them): completed as
    /// delivered, without a request.
    case delivered([QueueEntry])
    case empty
}

/// The body and the headers of one attempt.
package struct PushAttempt: Sendable {
    package var body: [UInt8]
    package var headers: [String]
    /// Appended to the configured URL for this attempt (a path under it), or empty.
    package var urlSuffix: String

    package init(body: [UInt8], headers: [String] = [], urlSuffix: String = "") {
        self.body = body
        self.headers = headers
        self.urlSuffix = urlSuffix
    }
}

/// Why an attempt could not be made at all (the queue then waits).
package struct PushProblem: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Turns the head of the queue into requests. Used on the delivery thread only.
package protocol RequestReader {
    associatedtype Request: PushRequest
    /// While holding or backing off, `housekeep` runs at least this often (seconds); nil: only
    /// when woken.
    var housekeepingSeconds: Double? { get }
    /// The next request; `retrying` is the number of records of the run tried last and not
    /// acknowledged, which its retry carries exactly (nil after a success).
    mutating func next(from queue: DurableQueue, retrying: Int?) throws(QueueError) -> NextRequest<Request>
    /// The body and this attempt's headers (a signature, a timestamp).
    func attempt(_ request: Request) throws(PushProblem) -> PushAttempt
    /// The POSTs that carry `request`: its `attempt`, or several that go out together (remote
    /// write's `max_parallel`), each a share of its records that the receiver takes apart from
    /// the others.
    func attempts(_ request: Request) throws(PushProblem) -> [PushAttempt]
    /// Of a request that went out as several POSTs, the one at `index` of its `attempts` was
    /// accepted while another was not: its retry leaves that one out.
    mutating func noteAccepted(attempt index: Int, of request: Request)
    /// After a 2xx: removes what the request carried (or notes how far into it the receiver got).
    mutating func acknowledge(_ request: Request, in queue: DurableQueue) throws(QueueError)
    /// What the receiver answered with its 2xx (its first 4 KiB), for a protocol whose success
    /// can say more (OTLP's partial success); usually nothing to read.
    func noteAccepted(_ request: Request, answer: [UInt8])
    /// While delivery waits: gives up on what is too old to matter.
    func housekeep(_ queue: DurableQueue)
    /// The receiver refused `request` for good: true when the reader sends its records again,
    /// each alone (the refusal may concern some of them only), so they stay queued; false when
    /// they are dropped as rejected.
    mutating func sendsApart(refused request: Request) -> Bool
}

extension RequestReader {
    package var housekeepingSeconds: Double? { nil }
    package func attempts(_ request: Request) throws(PushProblem) -> [PushAttempt] { [try attempt(request)] }
    package mutating func noteAccepted(attempt index: Int, of request: Request) {}
    package mutating func acknowledge(_ request: Request, in queue: DurableQueue) throws(QueueError) {
        try queue.complete(run: request.entries, as: .delivered)
    }
    package func noteAccepted(_ request: Request, answer: [UInt8]) {}
    package func housekeep(_ queue: DurableQueue) {}
    package mutating func sendsApart(refused request: Request) -> Bool { false }
}

import Dispatch
import NIOCore
import NIOPosix
import PathwatchHTTPSinkSettings
import PathwatchSinkKit
import Synchronization

/// The live agent over HTTP (contract §8): `/`, `/status`, `/metrics`, `/events`, `/healthz`,
/// served from the latest report on the http sinks' one event-loop thread. Run by a SinkRunner
/// that keeps every batch (each one's change events go to `/events`); a batch is only recorded
/// and its events handed to that thread, on the submitting thread, so no client can slow the
/// agent.
///
/// A listen address that is taken is retried every `bindRetry` (the agent keeps running and the
/// sink's `last_error` says why), so a restart racing its predecessor's socket recovers by itself.
final class HTTPSink: SinkDelivery {
    static let maxQueuedBatches = 10_000
    static let bindRetry = TimeAmount.seconds(5)
    /// One event-loop thread for every http sink of the process, for its whole life. A group of
    /// the sink's own would have to be shut down when a reload replaces the sink or the agent
    /// stops, and SwiftNIO does that through a Dispatch global queue, whose first job starts
    /// libdispatch's worker pool at a raised priority: refused for the service's user, and
    /// logged as "Failed to set thread priority" at every reload and stop.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    let settings: HTTPSinkSettings
    private let logger: AgentLogger
    private let hub: LiveHub
    private let server: HTTPServer
    private let tls: TLSContextWatcher?
    /// Why the TLS files could not be used when the sink was made (they changed since the
    /// configuration was read): the sink then does not listen at all, rather than in clear text.
    private let tlsProblem: String?
    private let outcome = Mutex<(listening: Bool, lastError: String?, closed: Bool)>((false, nil, false))

    init(settings: HTTPSinkSettings, logger: AgentLogger) {
        self.settings = settings
        self.logger = logger
        let loop = Self.loops.next()
        hub = LiveHub(loop: loop)
        var tlsProblem: String?
        if let tlsSettings = settings.tls {
            do {
                tls = try TLSContextWatcher(settings: tlsSettings, logger: logger)
            } catch {
                tls = nil
                tlsProblem = "\(error)"
            }
        } else {
            tls = nil
        }
        self.tlsProblem = tlsProblem
        let authenticator = HTTPAuthenticator(token: settings.token, users: settings.basicAuthUsers)
        server = HTTPServer(
            address: settings.listen, router: HTTPRouter(hub: hub, authenticator: authenticator),
            maxConnections: settings.maxConnections, tls: tls, loop: loop)
    }

    var url: String { "\(settings.listen.localURL(scheme: settings.tls == nil ? "http" : "https"))/" }

    var intakePolicy: SinkIntakePolicy { .keepAll(max: Self.maxQueuedBatches) }
    var threadName: String { "pw-sink-http" }
    var deliversOnCaller: Bool { true }

    func intake(_ batch: SinkBatch) -> SinkIntake<SinkBatch> { SinkIntake([batch]) }

    /// When the hub has a stream to write to, its event loop says so (`status`).
    func deliver(_ batch: SinkBatch) -> SinkDeliveryResult {
        hub.accept(batch)
        return .unconfirmed
    }

    /// Recording a batch never blocks: the submitting thread does it.
    func deliverOnCaller(_ batches: [SinkBatch]) -> SinkDeliveryResult? {
        for batch in batches { hub.accept(batch) }
        return .unconfirmed
    }

    /// Listens, and returns once the first attempt to bind has an answer (bounded): a sink that a
    /// reload put in its predecessor's place is serving when the reload says it is done.
    func start() {
        if let tlsProblem {
            outcome.withLock { $0.lastError = tlsProblem }
            logger.error("http sink: not serving \(settings.listen): \(tlsProblem)")
            return
        }
        if settings.insecureHTTP && settings.tls == nil && !settings.listen.isLoopback {
            logger.warning(
                "http sink: INSECURE: serving plain HTTP on \(settings.listen), beyond this host (\"insecure_http\": true): tokens, passwords and every status cross the network in clear text; set \"tls\""
            )
        }
        let answered = DispatchSemaphore(value: 0)
        bind { answered.signal() }
        _ = answered.wait(timeout: .now() + 2)
    }

    private func bind(_ answered: @escaping @Sendable () -> Void = {}) {
        server.bind { result in
            defer { answered() }
            switch result {
            case .success:
                let first = self.outcome.withLock { o -> Bool in
                    defer { o = (true, nil, o.closed) }
                    return o.lastError == nil
                }
                self.logger.notice("http sink: serving \(self.url)\(first ? "" : " (the address is free again)")")
            case .failure(let error):
                let why = "cannot listen on \(self.settings.listen): \(error)"
                let (closed, repeated) = self.outcome.withLock { o -> (Bool, Bool) in
                    defer { o.lastError = why }
                    return (o.closed, o.lastError == why)
                }
                guard !closed else { return }
                if !repeated {
                    self.logger.error(
                        "http sink: \(why); retrying every \(Self.bindRetry.nanoseconds / 1_000_000_000) s")
                }
                self.server.loop.scheduleTask(in: Self.bindRetry) {
                    if !self.outcome.withLock({ $0.closed }) { self.bind() }
                }
            }
        }
    }

    func status() -> SinkStatus {
        let (listening, lastError, _) = outcome.withLock { $0 }
        let counters = hub.counters
        // `queued`: change events and documents waiting for a stream; they never wait here, the
        // event loop writes them at once. `dropped`: streams cut off for not reading.
        return SinkStatus(
            type: "http", target: url, queued: 0, dropped: counters.disconnected,
            lastDelivery: counters.lastDelivery, lastError: listening ? nil : lastError)
    }

    /// The successor listens on the same address: the live pages and streams move to it.
    func close(handingOverTo successor: HTTPSink?) {
        outcome.withLock { $0.closed = true }
        tls?.stop()
        if let successor { hub.handOver(to: successor.hub) }
        // Wait (briefly) for the socket to close, so a successor on the same address can bind.
        let closed = DispatchSemaphore(value: 0)
        server.close().whenComplete { _ in closed.signal() }
        _ = closed.wait(timeout: .now() + 2)
    }
}

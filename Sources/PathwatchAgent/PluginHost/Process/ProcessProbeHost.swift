import PathwatchProbeKit
import Synchronization

/// The process host: the plug-in is loaded and called in a supervised child, `pathwatch
/// plugin-child`, never in the agent. A child that crashes, exits or aborts makes the call
/// fail with the cause ("plug-in crashed: SIGSEGV (signal 11) during sample") and is started
/// again with backoff; one that overruns its deadline by more than the grace is killed (no
/// thread is ever left inside a plug-in). Each call's deadline goes to the child in its frame,
/// which hands it to the plug-in. Calls are serialised by the caller; they block on the reply,
/// on the caller's own thread.
public final class ProcessProbeHost: ProbeHost, Sendable {
    public let plugin: LoadedPlugin
    public var isolation: Isolation { .process }
    let probeID: String
    let configJSON: String
    let limits: ChildLimits
    let logger: AgentLogger

    private struct State {
        var child: ChildProcess?
        var startedAt: Int64 = 0
        var startAllowedAt: Int64 = 0
        var backoff = RestartBackoff()
        var health = ProbeHealth()
        /// Why the running call's child was killed (an overrun deadline), to report instead of SIGKILL.
        var killReason: String?
        var events: (@Sendable (CallResult) -> Void)?
        var destroyed = false
        var everStarted = false
    }
    private let state = Mutex(State())

    struct ChildLimits: Sendable {
        var maxMemoryBytes: UInt64
        var maxObservations: Int
        /// The probe's timeout: the deadline of the events the child serves itself.
        var probeTimeout: ConfigDuration
        /// Loading the plug-in, and then creating an instance, may each take this long (create
        /// is told it as its deadline, and killed only after the grace).
        var createTimeout: ConfigDuration

        init(maxMemoryBytes: UInt64, maxObservations: Int, probeTimeout: ConfigDuration) {
            self.maxMemoryBytes = maxMemoryBytes
            self.maxObservations = maxObservations
            self.probeTimeout = probeTimeout
            createTimeout = CallDeadlines.createTimeout(probeTimeout: probeTimeout)
        }
    }

    /// A host for `probeID`, with its child started and the instance created. A configuration
    /// the plug-in refuses comes back as the error; a child that dies while creating does not:
    /// the host is returned failed, and its samples say why until a restart succeeds.
    static func create(plugin: LoadedPlugin, probeID: String, configJSON: String, limits: ChildLimits, logger: AgentLogger)
        -> Result<ProcessProbeHost, JSONPathError>
    {
        let host = ProcessProbeHost(plugin: plugin, probeID: probeID, configJSON: configJSON, limits: limits, logger: logger)
        if case .refusedConfig(let error) = host.startChild() { return .failure(error) }
        return .success(host)
    }

    private init(plugin: LoadedPlugin, probeID: String, configJSON: String, limits: ChildLimits, logger: AgentLogger) {
        self.plugin = plugin
        self.probeID = probeID
        self.configJSON = configJSON
        self.limits = limits
        self.logger = logger
    }

    private enum StartOutcome {
        case started(ChildProcess)
        case refusedConfig(JSONPathError)
        case failed(String)
    }

    /// Starts a child and creates the instance in it.
    private func startChild() -> StartOutcome {
        let forward: @Sendable (CallResult) -> Void = { [weak self] result in self?.forwardEvent(result) }
        let arguments = ["--plugin", plugin.path, "--max-memory", String(limits.maxMemoryBytes), "--max-observations", String(limits.maxObservations)]
        let child: ChildProcess
        switch ChildProcess.start(arguments: arguments, label: "probe \(probeID)", logger: logger, events: forward) {
        case .failure(let error): return fail(error.reason, child: nil)
        case .success(let started): child = started
        }
        state.withLock { s in
            s.child = child
            s.startedAt = MonotonicClock.nowNanoseconds()
            if s.everStarted { s.health.restarts += 1 }
            s.everStarted = true
            s.health.pid = child.pid
        }
        // The child first says what it loaded, then answers the create call.
        switch child.next(within: limits.createTimeout.seconds) {
        case .frame(let frame)?:
            if let reason = frame["refused"]?.stringValue { return fail("plug-in refused while loading: \(reason)", child: child) }
        case .sampled?: break
        case .ended(let status)?: return fail("\(ChildEnd.describe(status)) while loading", child: child)
        case nil: return killed("did not load within \(limits.createTimeout)", child: child)
        }
        let deadline = Deadline.after(limits.createTimeout)
        let create = CallFrames.create(config: configJSON, by: deadline, probeTimeout: limits.probeTimeout)
        guard child.send(create) else { return ended(child, during: "create") }
        let reply = child.next(within: limits.createTimeout.seconds + CallDeadlines.grace.seconds)
        if case .frame(let frame)? = reply, let refusal = frame["refused_config"] {
            child.finish()
            state.withLock { $0.child = nil }
            return .refusedConfig(JSONPathError(
                path: JSONPath(parsing: refusal["path"]?.stringValue ?? ""),
                message: refusal["message"]?.stringValue ?? "plug-in \(plugin.name) refused its configuration without saying why"))
        }
        switch reply {
        case .frame?, .sampled?:
            state.withLock { s in
                s.health.state = .running
            }
            return .started(child)
        case .ended(let status)?: return fail("\(ChildEnd.describe(status)) during create", child: nil)
        case nil: return killed("create \(CallDeadlines.overran(limits.createTimeout))", child: child)
        }
    }

    private func ended(_ child: ChildProcess, during call: String) -> StartOutcome {
        if case .ended(let status)? = child.next(within: 5) { return fail("\(ChildEnd.describe(status)) during \(call)", child: nil) }
        return killed("stopped answering during \(call)", child: child)
    }

    private func killed(_ reason: String, child: ChildProcess) -> StartOutcome {
        child.kill()
        _ = child.next(within: 5)
        return fail("plug-in \(reason); killed", child: nil)
    }

    /// Records a dead or refused child and when the next may start.
    private func fail(_ cause: String, child: ChildProcess?) -> StartOutcome {
        child?.kill()
        let now = MonotonicClock.nowNanoseconds()
        let delay = state.withLock { s -> Int64 in
            s.child = nil
            s.health.pid = nil
            s.health.lastError = cause
            s.health.state = .restarting
            let delay = s.backoff.delay(startedAt: s.startedAt, now: now)
            s.startAllowedAt = now + delay
            return delay
        }
        logger.warning("probe \(probeID): \(cause); starting it again in \(delay / 1_000_000_000)s")
        return .failed(cause)
    }

    public func sample(by deadline: Deadline) -> CallResult {
        let started = MonotonicClock.nowNanoseconds()
        defer {
            let elapsed = Double(MonotonicClock.nowNanoseconds() - started) / 1e6
            state.withLock { $0.health.lastDurationMilliseconds = elapsed }
        }
        let (current, waiting, lastError) = state.withLock { s in (s.child, s.startAllowedAt > MonotonicClock.nowNanoseconds(), s.health.lastError) }
        var child = current
        if child == nil {
            if waiting { return CallResult(observations: [], error: lastError ?? "plug-in restarting", problems: []) }
            switch startChild() {
            case .started(let started): child = started
            case .failed(let cause): return CallResult(observations: [], error: cause, problems: [])
            case .refusedConfig(let error):
                let cause = "plug-in refused its configuration on restart: \(error)"
                _ = fail(cause, child: nil)
                return CallResult(observations: [], error: cause, problems: [])
            }
        }
        guard let child else { return CallResult(observations: [], error: "plug-in not running", problems: []) }
        state.withLock { $0.killReason = nil }
        guard child.send(CallFrames.sample(by: deadline)) else { return failure(of: child, during: "sample") }
        switch child.next() {
        case .sampled(let result?)?:
            state.withLock { s in
                s.health.state = .running
                s.health.lastError = result.error
            }
            return result
        case .sampled(nil)?, .frame?:
            child.kill()
            return failure(of: child, during: "sample")
        case .ended(let status)?:
            return failed(child, status: status, during: "sample")
        case nil:
            return failure(of: child, during: "sample")
        }
    }

    private func failure(of child: ChildProcess, during call: String) -> CallResult {
        guard case .ended(let status)? = child.next(within: 5) else {
            child.kill()
            return failed(child, status: Int32(SIGKILL), during: call)
        }
        return failed(child, status: status, during: call)
    }

    private func failed(_ child: ChildProcess, status: Int32, during call: String) -> CallResult {
        let reason = state.withLock { $0.killReason }
        let cause = reason ?? "\(ChildEnd.describe(status)) during \(call)"
        _ = fail(cause, child: nil)
        return CallResult(observations: [], error: cause, problems: [])
    }

    /// The child polls its plug-in's descriptor itself.
    public func eventFileDescriptor() -> Int32? { nil }
    public func handleEvent(by deadline: Deadline) -> CallResult { CallResult(observations: [], error: nil, problems: []) }

    public func forwardEvents(to deliver: @escaping @Sendable (CallResult) -> Void) {
        state.withLock { $0.events = deliver }
    }

    private func forwardEvent(_ result: CallResult) {
        state.withLock { $0.events }?(result)
    }

    public func abandonRunningCall(reason: String) {
        let child = state.withLock { s -> ChildProcess? in
            s.killReason = "\(reason); plug-in restarted"
            return s.child
        }
        child?.kill()
    }

    public var health: ProbeHealth { state.withLock { $0.health } }

    public func destroy() {
        let child = state.withLock { s -> ChildProcess? in
            s.destroyed = true
            defer { s.child = nil }
            return s.child
        }
        // The child destroys its instance and exits (or is killed after 2 s); waiting for it
        // means what it printed on the way out is logged before the agent goes on or exits.
        child?.finish()
        child?.waitForEnd(seconds: 3)
    }
}

import CPathwatchProbe
import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules

/// Runs a probe's calls the way the agent does — through the C ABI, with the agent's own
/// validator (`ObservationGate`) behind the emitter — in a unit test, and returns what it
/// emitted. Works for a Swift probe type (through `ProbeExport`) and for any descriptor (a C
/// plug-in's). It refuses what the agent refuses, with the same words: a descriptor of another
/// ABI or with bad metric declarations, a malformed observation, a metric with a bad name or
/// one that would expose another's series, a second observation with one key, an emit after
/// the call returned, a call that overruns its deadline by more than the host's grace, an event
/// descriptor `handleEvent` does not drain (`DescriptorDrain`).
///
///     let probe = try ProbeTester(UptimeProbe.self, config: #"{"warn_below": "1h"}"#)
///     let checks = try probe.sample()
///     #expect(checks.first?.state == .ok)
///
/// Each call takes the deadline the host would hand it (`Deadline.current` inside the probe);
/// without one the probe sees none, as under an agent that sets none. With one, the call runs
/// on a thread of its own and the test fails when it is still running a second past it:
///
///     let checks = try probe.sample(within: .milliseconds(300))
public final class ProbeTester {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The JSON path of a refused config value ("" when not about one).
        public var path: String
        public var message: String
        public init(_ message: String, path: String = "") {
            self.message = message
            self.path = path
        }
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// What one call produced, refusals included: for a test of what the agent would log.
    public struct Report: Sendable {
        public var emitted: [Emitted]
        /// What the agent refuses or leaves out, and why, in the words it logs.
        public var problems: [String]
        /// Observations refused whole.
        public var refused: Int
    }

    private let descriptor: UnsafePointer<pw_probe_descriptor>
    private let instance: UnsafeMutableRawPointer?
    /// What the descriptor says, as the agent read it.
    public let described: DescribedPlugin
    /// Strict: a call that emits a metric the descriptor does not declare fails, in the words
    /// of `plugins --try --strict` (UndeclaredMetrics). Off by default, as the agent takes them.
    public var strict = false
    /// Emits that came after their call returned, said with the next call as the agent says them.
    private let lateEmits = LateEmits()
    /// Set when a call overran: that instance is never called again, nor destroyed under it.
    private var abandoned: String?
    /// `handleEvent` calls in a row after which the event descriptor was still readable with
    /// nothing read from it (DescriptorDrain).
    private var undrainedCalls = 0

    /// Creates an instance of the Swift probe `type` from `config` (JSON text), under `deadline`
    /// when given; a refusal is thrown with its JSON path.
    public convenience init<P: Probe>(_ type: P.Type, config: String = "{}", deadline: Deadline? = nil) throws(Failure)
    {
        try self.init(
            descriptor: ProbeExport.descriptor(for: type).assumingMemoryBound(to: pw_probe_descriptor.self),
            config: config,
            deadline: deadline)
    }

    /// Creates an instance through any plug-in's descriptor, after checking the descriptor as the
    /// agent does (ABI version, size, name, calls, metric declarations).
    public init(descriptor: UnsafePointer<pw_probe_descriptor>, config: String = "{}", deadline: Deadline? = nil)
        throws(Failure)
    {
        self.descriptor = descriptor
        switch DescriptorCheck.check(descriptor) {
        case .failure(let refusal): throw Failure(refusal.description)
        case .success(let read): described = read
        }
        var error = Self.hostError(deadline)
        var created: UnsafeMutableRawPointer? = nil
        let bytes = Array(config.utf8) + [0]
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                descriptor.pointee.create(text, buffer.count - 1, &created, &error)
            }
        }
        guard status == PW_OK else {
            let (path, message) = error.texts()
            throw Failure(message, path: path)
        }
        instance = created
    }

    deinit {
        if abandoned == nil { descriptor.pointee.destroy(instance) }
    }

    /// One sample, under `deadline` when given: every observation emitted, in order. A failed
    /// sample throws its message; anything the agent would refuse or leave out throws what the
    /// agent would log.
    public func sample(by deadline: Deadline? = nil) throws(Failure) -> [Emitted] {
        try Self.throwingProblems(sampleReport(by: deadline))
    }

    /// One sample with the deadline a probe's `timeout` gives it.
    public func sample(within timeout: ConfigDuration) throws(Failure) -> [Emitted] {
        try Self.throwingProblems(sampleReport(within: timeout))
    }

    /// One sample, with what the agent would refuse or leave out reported instead of thrown.
    public func sampleReport(by deadline: Deadline? = nil) throws(Failure) -> Report {
        let sample = descriptor.pointee.sample!
        return try call(deadline) { instance, emitter, error in sample(instance, emitter, error) }
    }

    /// One sample under a probe's `timeout`, with what the agent would refuse reported.
    public func sampleReport(within timeout: ConfigDuration) throws(Failure) -> Report {
        let sample = descriptor.pointee.sample!
        return try call(.after(timeout), timeout: timeout) { instance, emitter, error in
            sample(instance, emitter, error)
        }
    }

    /// The event descriptor of an event-driven probe, nil otherwise.
    public var eventDescriptor: Int32? {
        guard let eventFD = descriptor.pointee.event_fd else { return nil }
        let fd = eventFD(instance)
        return fd >= 0 ? fd : nil
    }

    /// Serves the event descriptor's readiness once, under `deadline` when given: the
    /// observations that changed.
    public func handleEvent(by deadline: Deadline? = nil) throws(Failure) -> [Emitted] {
        try Self.throwingProblems(handleEventReport(by: deadline))
    }

    /// `handleEvent` with what the agent would refuse reported; after the agent's count of calls
    /// that each left the descriptor readable with nothing read, the report says what the agent
    /// says of a descriptor its plug-in does not drain (and `handleEvent` throws it).
    public func handleEventReport(by deadline: Deadline? = nil) throws(Failure) -> Report {
        guard let handle = descriptor.pointee.handle_event else { throw Failure("the probe is not event-driven") }
        let fd = eventDescriptor
        let before = fd.map(DescriptorDrain.readiness(of:))
        var report = try call(deadline) { instance, emitter, error in handle(instance, emitter, error) }
        if let fd, let before {
            let after = DescriptorDrain.readiness(of: fd)
            let stuck = after.readable && !DescriptorDrain.progressed(before: before.waiting, after: after.waiting)
            undrainedCalls = stuck ? undrainedCalls + 1 : 0
            if undrainedCalls >= DescriptorDrain.callsBeforeThrottle { report.problems.append(DescriptorDrain.problem) }
        }
        return report
    }

    /// One sample of a probe object the test made itself (to look at its internals too), through
    /// the agent's validator, with `Deadline.current` bound to `deadline`. A failed sample throws
    /// what the probe threw; a refusal throws what the agent would log.
    public static func sample<P: Probe>(_ probe: P, by deadline: Deadline? = nil) throws -> [Emitted] {
        try Deadline.$current.withValue(deadline) { try collect(declaredBy: P.self) { try probe.sample(into: $0) } }
    }

    /// Runs `call` with an emitter behind the agent's validator (a probe's own event handler,
    /// say), reading metric names by `P`'s declarations.
    public static func collect<P: Probe>(declaredBy type: P.Type, _ call: (Emitter) throws -> Void) throws -> [Emitted]
    {
        guard case .success(let catalog) = MetricCatalog.checked(P.metrics) else {
            if case .failure(let why) = MetricCatalog.checked(P.metrics) {
                throw Failure("metric declarations: \(why)")
            }
            return []
        }
        return try collect(catalog: catalog, call)
    }

    /// Runs `call` with an emitter behind the agent's validator, for undeclared metrics.
    public static func collect(_ call: (Emitter) throws -> Void) throws -> [Emitted] {
        try collect(catalog: .undeclared, call)
    }

    private static func collect(catalog: MetricCatalog, _ call: (Emitter) throws -> Void) throws -> [Emitted] {
        let gate = ObservationGate(KeptObservations(), catalog: catalog)
        let thrown: (any Error)? = EmitterSlots.withEmitter(for: gate) { emitter in
            do {
                try call(Emitter(raw: emitter))
                return nil
            } catch {
                return error
            }
        }
        if let thrown { throw thrown }
        return try throwingProblems(report(of: gate))
    }

    /// The pw_error a host hands in: full size, carrying `deadline` (0 when nil).
    private static func hostError(_ deadline: Deadline?) -> pw_error {
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        error.deadline_ns = deadline.map { UInt64(max(1, $0.monotonicNanoseconds)) } ?? 0
        return error
    }

    private static func report(of gate: ObservationGate<KeptObservations>, strictly catalog: MetricCatalog? = nil)
        -> Report
    {
        let refused = gate.refusedCount
        return gate.withKept { kept, problems in
            let undeclared = catalog.map { UndeclaredMetrics.problems(kept.observations, catalog: $0) } ?? []
            return Report(
                emitted: kept.observations.map(Emitted.init), problems: problems + undeclared, refused: refused)
        }
    }

    private static func throwingProblems(_ report: Report) throws(Failure) -> [Emitted] {
        if let first = report.problems.first {
            throw Failure(report.problems.count == 1 ? first : "\(first) (and \(report.problems.count - 1) more)")
        }
        return report.emitted
    }

    private func call(
        _ deadline: Deadline?, timeout: ConfigDuration? = nil,
        _ body: @escaping (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>, UnsafeMutablePointer<pw_error>) -> Int32
    ) throws(Failure) -> Report {
        if let abandoned { throw Failure("the instance is no longer called: an earlier call \(abandoned)") }
        let gate = ObservationGate(KeptObservations(), catalog: described.metrics)
        if lateEmits.take() > 0 { gate.note(LateEmits.problem) }
        let late = lateEmits
        let outcome = CallOutcome()
        let instance = self.instance
        let error = Self.hostError(deadline)
        // The agent's own emitters: a plug-in that keeps one and emits after its call returned
        // reaches a closed call and gets PW_ERR, never freed memory.
        let run = {
            var error = error
            let status = EmitterSlots.withEmitter(for: gate, late: late) { emitter in
                body(instance, emitter, &error)
            }
            outcome.finish(status: status, error: error)
        }
        if let deadline {
            let started = MonotonicClock.nowNanoseconds()
            guard CallThread.run(until: deadline.monotonicNanoseconds &+ CallGrace.grace.nanoseconds, run) else {
                gate.close()
                // The timeout as the probe's configuration says it; from a bare deadline, the time
                // the call was given, in whole milliseconds.
                let given =
                    timeout
                    ?? ConfigDuration(
                        nanoseconds: (max(0, deadline.monotonicNanoseconds - started) + 500_000) / 1_000_000 * 1_000_000
                    )
                let overran = CallGrace.overran(given)
                abandoned = overran
                throw Failure(overran)
            }
        } else {
            run()
        }
        gate.close()
        guard let (status, returned) = outcome.result else { throw Failure("the call did not finish") }
        guard status == PW_OK else {
            var returned = returned
            throw Failure(returned.texts().message)
        }
        return Self.report(of: gate, strictly: strict ? described.metrics : nil)
    }
}

/// A call's return, handed from the thread that ran it.
private final class CallOutcome: @unchecked Sendable {
    private(set) var result: (Int32, pw_error)?
    func finish(status: Int32, error: pw_error) { result = (status, error) }
}

extension Emitted {
    init(_ o: Observation) {
        self.init(
            key: o.key, state: o.state, message: o.message,
            metrics: Dictionary(
                o.metrics.map { ($0.seriesName, $0.value) },
                uniquingKeysWith: { a, _ in a }),
            labels: Dictionary(o.labels.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

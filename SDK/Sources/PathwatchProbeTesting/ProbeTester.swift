import CPathwatchProbe
import PathwatchProbeKit

/// What a probe emitted in one call, as plain values a test can compare.
public struct Emitted: Sendable, Equatable {
    public var key: String
    public var state: CheckState
    public var message: String
    public var metrics: [String: Double]
    public var labels: [String: String]

    public init(key: String, state: CheckState, message: String, metrics: [String: Double] = [:], labels: [String: String] = [:]) {
        self.key = key
        self.state = state
        self.message = message
        self.metrics = metrics
        self.labels = labels
    }

    /// The metric, or a failure naming what the observation did have.
    public func metric(_ name: String) throws(ProbeTester.Failure) -> Double {
        guard let value = metrics[name] else {
            throw ProbeTester.Failure("no metric \(name) in \(key) (has \(metrics.keys.sorted()))")
        }
        return value
    }
}

/// Runs a probe's calls the way the agent does — through the C ABI, with an emitter that copies
/// each observation during the call — in a unit test, and returns what it emitted. Works for a
/// Swift probe type (through `ProbeExport`) and for any descriptor (a C plug-in's).
///
///     let probe = try ProbeTester(UptimeProbe.self, config: #"{"warn_below": "1h"}"#)
///     let checks = try probe.sample()
///     #expect(checks.first?.state == .ok)
///
/// Each call takes the deadline the host would hand it (`Deadline.current` inside the probe);
/// without one the probe sees none, as under an agent that sets none:
///
///     let checks = try probe.sample(by: .after(.milliseconds(300)))
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

    private let descriptor: UnsafePointer<pw_probe_descriptor>
    private let instance: UnsafeMutableRawPointer?

    /// Creates an instance of the Swift probe `type` from `config` (JSON text), under `deadline`
    /// when given; a refusal is thrown with its JSON path.
    public convenience init<P: Probe>(_ type: P.Type, config: String = "{}", deadline: Deadline? = nil) throws(Failure) {
        try self.init(
            descriptor: ProbeExport.descriptor(for: type).assumingMemoryBound(to: pw_probe_descriptor.self), config: config,
            deadline: deadline)
    }

    /// Creates an instance through any plug-in's descriptor.
    public init(descriptor: UnsafePointer<pw_probe_descriptor>, config: String = "{}", deadline: Deadline? = nil) throws(Failure) {
        self.descriptor = descriptor
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

    deinit { descriptor.pointee.destroy(instance) }

    /// One sample, under `deadline` when given: every observation emitted, in order. A failed
    /// sample throws its message.
    public func sample(by deadline: Deadline? = nil) throws(Failure) -> [Emitted] {
        try call(deadline) { instance, emitter, error in descriptor.pointee.sample(instance, emitter, error) }
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
        guard let handle = descriptor.pointee.handle_event else { throw Failure("the probe is not event-driven") }
        return try call(deadline) { instance, emitter, error in handle(instance, emitter, error) }
    }

    /// One sample of a probe object the test made itself (to look at its internals too), through
    /// the same copying emitter, with `Deadline.current` bound to `deadline`. A failed sample
    /// throws what the probe threw.
    public static func sample<P: Probe>(_ probe: P, by deadline: Deadline? = nil) throws -> [Emitted] {
        try Deadline.$current.withValue(deadline) { try collect { try probe.sample(into: $0) } }
    }

    /// The pw_error a host hands in: full size, carrying `deadline` (0 when nil).
    private static func hostError(_ deadline: Deadline?) -> pw_error {
        var error = pw_error()
        error.struct_size = MemoryLayout<pw_error>.size
        error.deadline_ns = deadline.map { UInt64(max(1, $0.monotonicNanoseconds)) } ?? 0
        return error
    }

    /// Runs `call` with an emitter that copies what it emits (a probe's own event handler, say).
    public static func collect(_ call: (Emitter) throws -> Void) throws -> [Emitted] {
        let collected = Collected()
        let context = Unmanaged.passRetained(collected)
        defer { context.release() }
        var emitter = pw_emitter(struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque(), emit: copyObservation)
        try withUnsafePointer(to: &emitter) { try call(Emitter(raw: $0)) }
        if let problem = collected.problems.first { throw Failure("malformed observation: \(problem)") }
        return collected.emitted
    }

    private func call(
        _ deadline: Deadline?, _ body: (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>, UnsafeMutablePointer<pw_error>) -> Int32
    ) throws(Failure) -> [Emitted] {
        let collected = Collected()
        let context = Unmanaged.passRetained(collected)
        defer { context.release() }
        var emitter = pw_emitter(struct_size: MemoryLayout<pw_emitter>.size, context: context.toOpaque(), emit: copyObservation)
        var error = Self.hostError(deadline)
        let status = body(instance, &emitter, &error)
        guard status == PW_OK else { throw Failure(error.texts().message) }
        if let problem = collected.problems.first { throw Failure("malformed observation: \(problem)") }
        return collected.emitted
    }
}

final class Collected {
    var emitted: [Emitted] = []
    var problems: [String] = []
    /// Keys emitted in this call: the agent refuses a second observation with one, and so does
    /// the tester, or a probe that passes its tests would lose a check under the agent.
    var keys: Set<String> = []
}

/// The emitter: copies one observation, walking its arrays with the plug-in's own struct sizes
/// (a plug-in built against a later header whose structs grew is read correctly).
private let copyObservation: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<pw_observation>?) -> Int32 = { context, raw in
    guard let context, let raw else { return PW_ERR }
    let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
    let o = raw.pointee
    guard o.struct_size >= MemoryLayout<pw_observation>.size, let key = o.key, let state = CheckState(rawValue: o.state) else {
        collected.problems.append("bad struct_size, key or state")
        return PW_ERR
    }
    var metrics: [String: Double] = [:]
    if o.metric_count > 0 {
        guard let base = o.metrics else { collected.problems.append("metrics is NULL"); return PW_ERR }
        let stride = base.pointee.struct_size
        for i in 0..<o.metric_count {
            let m = UnsafeRawPointer(base).advanced(by: i * stride).assumingMemoryBound(to: pw_metric.self).pointee
            guard let name = m.name, m.value.isFinite else { collected.problems.append("metric \(i) has no name or is not finite"); return PW_ERR }
            metrics[String(cString: name)] = m.value
        }
    }
    var labels: [String: String] = [:]
    if o.label_count > 0 {
        guard let base = o.labels else { collected.problems.append("labels is NULL"); return PW_ERR }
        let stride = base.pointee.struct_size
        for i in 0..<o.label_count {
            let l = UnsafeRawPointer(base).advanced(by: i * stride).assumingMemoryBound(to: pw_label.self).pointee
            guard let name = l.name, let value = l.value else { collected.problems.append("label \(i) is incomplete"); return PW_ERR }
            labels[String(cString: name)] = String(cString: value)
        }
    }
    let keyText = String(cString: key)
    guard collected.keys.insert(keyText).inserted else {
        collected.problems.append("check \"\(keyText)\": a second observation with this key in one call; refused, the first kept")
        return PW_ERR
    }
    collected.emitted.append(
        Emitted(key: keyText, state: state, message: o.message.map { String(cString: $0) } ?? "", metrics: metrics, labels: labels))
    return PW_OK
}

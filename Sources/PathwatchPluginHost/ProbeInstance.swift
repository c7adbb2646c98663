import CFaultReport
import CPathwatchProbe
import PathwatchBase
import PathwatchJSON
import PathwatchProbeKit
import PathwatchProbeRules
import PathwatchSinkKit
import Synchronization

/// What one call into a plug-in produced.
package struct CallResult: Sendable {
    package var observations: [Observation]
    /// The plug-in's own error, when it returned PW_ERR.
    package var error: String?
    /// What the host refused or left out (a malformed observation, a metric with a bad name),
    /// and why.
    package var problems: [String]
    /// Observations refused whole: with none accepted, the probe is unknown with the reason.
    package var refused: Int = 0
}

/// One created instance of a plug-in loaded in this process, configured for one probe: the
/// inline host. Calls into it are not thread-safe by contract: the caller (a ProbeRunner)
/// serialises them.
package final class ProbeInstance: ProbeHost, @unchecked Sendable {
    package let plugin: LoadedPlugin
    package var isolation: Isolation { .inline }
    private let descriptor: UnsafePointer<pw_probe_descriptor>
    private let handle: UnsafeMutableRawPointer?
    private let maxObservations: Int
    /// The probe this instance serves, when this process knows it (the agent does, a plug-in's
    /// child does not): a crash inside the plug-in names it.
    private let probeID: String?
    private var destroyed = false
    private let lastDuration = Mutex<Double?>(nil)
    /// Why the running call was given up on (it overran its deadline), until it returns.
    private let abandoned = Mutex<String?>(nil)
    /// Emits that came after their call returned, said with the next call.
    private let lateEmits = LateEmits()

    /// Creates an instance from the probe's config, telling the plug-in `deadline` (none when
    /// nil); a refusal comes back as a path relative to that config (e.g. "targets[0].url") with
    /// the plug-in's message. `probeID` names the probe in a crash's line, when known.
    package static func create(
        plugin: LoadedPlugin, configJSON: String, maxObservations: Int = 100_000, deadline: Deadline?,
        probeID: String? = nil
    )
        -> Result<ProbeInstance, JSONPathError>
    {
        guard let descriptor = plugin.descriptor else {
            return .failure(
                JSONPathError(
                    path: JSONPath(parsing: ""), message: "plug-in \(plugin.name) is not loaded in this process"))
        }
        var error = hostError(deadline)
        var instance: UnsafeMutableRawPointer? = nil
        let bytes = Array(configJSON.utf8) + [0]
        let status = FaultCallMark.during(PW_FAULT_CALL_CREATE, plugin: plugin.name, probe: probeID) {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { text in
                    descriptor.pointee.create(text, buffer.count - 1, &instance, &error)
                }
            }
        }
        if status != PW_OK {
            let (path, message) = error.texts()
            return .failure(
                JSONPathError(
                    path: JSONPath(parsing: path),
                    message: message.isEmpty
                        ? "plug-in \(plugin.name) refused its configuration without saying why" : message))
        }
        let created = ProbeInstance(
            plugin: plugin, descriptor: descriptor, handle: instance, maxObservations: maxObservations,
            probeID: probeID)
        // An event-driven plug-in without a descriptor would never report a change between
        // samples, and nobody would know: refuse it, as the plug-in's own error.
        if descriptor.pointee.event_fd != nil, created.eventFileDescriptor() == nil {
            created.destroy()
            return .failure(
                JSONPathError(
                    path: JSONPath(parsing: ""),
                    message:
                        "plug-in \(plugin.name) is event-driven (it has event_fd) but its instance gave no event descriptor "
                        + "(event_fd returned a negative number)"))
        }
        return .success(created)
    }

    private init(
        plugin: LoadedPlugin, descriptor: UnsafePointer<pw_probe_descriptor>, handle: UnsafeMutableRawPointer?,
        maxObservations: Int, probeID: String?
    ) {
        self.plugin = plugin
        self.descriptor = descriptor
        self.handle = handle
        self.maxObservations = maxObservations
        self.probeID = probeID
    }

    /// Runs `body`, a call into the plug-in, with the thread marked as in `call` of this instance.
    private func marked<T>(_ call: pw_fault_call, _ body: () -> T) -> T {
        FaultCallMark.during(call, plugin: plugin.name, probe: probeID, body)
    }

    /// Takes one sample. Blocks for as long as the plug-in does.
    package func sample(by deadline: Deadline) -> CallResult {
        call(PW_FAULT_CALL_SAMPLE, deadline) { [descriptor] handle, emitter, error in
            descriptor.pointee.sample(handle, emitter, error)
        }
    }

    /// The descriptor to watch, for event-driven plug-ins; nil otherwise.
    package func eventFileDescriptor() -> Int32? {
        guard let eventFD = descriptor.pointee.event_fd else { return nil }
        let fd = marked(PW_FAULT_CALL_EVENT_FD) { eventFD(handle) }
        return fd >= 0 ? fd : nil
    }

    /// Serves readiness of the event descriptor.
    package func handleEvent(by deadline: Deadline) -> CallResult {
        guard let handleEvent = descriptor.pointee.handle_event else {
            return CallResult(observations: [], error: nil, problems: [])
        }
        return call(PW_FAULT_CALL_HANDLE_EVENT, deadline) { handle, emitter, error in
            handleEvent(handle, emitter, error)
        }
    }

    package func destroy() {
        guard !destroyed else { return }
        destroyed = true
        marked(PW_FAULT_CALL_DESTROY) { descriptor.pointee.destroy(handle) }
    }

    /// Inline, the probe's runner watches the event descriptor itself.
    package func forwardEvents(to deliver: @escaping @Sendable (CallResult) -> Void) {}

    /// Nothing can stop a call inside this process: its thread stays until the plug-in returns.
    /// The reason is the host's last error meanwhile.
    package func abandonRunningCall(reason: String) { abandoned.withLock { $0 = reason } }

    /// Stopped with a call inside: a call already given up on keeps that reason (`once` stops
    /// with an overrun sample still running, and its `last_error` said only "stopped").
    package func abandonRunningCallToStop() { abandoned.withLock { $0 = $0 ?? "stopped" } }

    package var health: ProbeHealth {
        ProbeHealth(
            state: .running, restarts: 0, pid: nil, lastError: abandoned.withLock { $0 },
            lastDurationMilliseconds: lastDuration.withLock { $0 })
    }

    /// A sample written straight into the result record a plug-in's child sends.
    package func sampleRecord(by deadline: Deadline?) -> [UInt8] {
        record(.sampled, PW_FAULT_CALL_SAMPLE, deadline) { [descriptor] handle, emitter, error in
            descriptor.pointee.sample(handle, emitter, error)
        }
    }

    /// An event's result written straight into the record a plug-in's child sends.
    package func handleEventRecord(by deadline: Deadline?) -> [UInt8] {
        guard let handleEvent = descriptor.pointee.handle_event else {
            return ResultFrames.encode(.event, CallResult(observations: [], error: nil, problems: []))
        }
        return record(.event, PW_FAULT_CALL_HANDLE_EVENT, deadline) { handle, emitter, error in
            handleEvent(handle, emitter, error)
        }
    }

    private typealias Call = (UnsafeMutableRawPointer?, UnsafePointer<pw_emitter>, UnsafeMutablePointer<pw_error>) ->
        Int32

    private func call(_ call: pw_fault_call, _ deadline: Deadline?, _ body: Call) -> CallResult {
        let collector = ObservationCollector(maxObservations: maxObservations, metrics: plugin.metrics)
        let failure = run(call, body, deadline, into: collector)
        return CallResult(
            observations: collector.observations, error: failure, problems: collector.problems,
            refused: collector.refusedCount)
    }

    private func record(_ kind: ResultFrames.Kind, _ call: pw_fault_call, _ deadline: Deadline?, _ body: Call)
        -> [UInt8]
    {
        let collector = ObservationCollector(maxObservations: maxObservations, record: kind, metrics: plugin.metrics)
        let failure = run(call, body, deadline, into: collector)
        return collector.finishedRecord(error: failure)!
    }

    /// Runs one call with the collector's emitter; the plug-in's error when it failed.
    private func run(_ call: pw_fault_call, _ body: Call, _ deadline: Deadline?, into collector: ObservationCollector)
        -> String?
    {
        var error = hostError(deadline)
        if lateEmits.take() > 0 { collector.note(LateEmits.problem) }
        let started = MonotonicClock.nowNanoseconds()
        let status = marked(call) {
            EmitterSlots.withEmitter(for: collector, late: lateEmits) { emitter in body(handle, emitter, &error) }
        }
        lastDuration.withLock { $0 = Double(MonotonicClock.nowNanoseconds() - started) / 1e6 }
        abandoned.withLock { $0 = nil }
        guard status != PW_OK else { return nil }
        let message = error.texts().message
        return message.isEmpty ? "plug-in \(plugin.name) reported a failed sample without saying why" : message
    }
}

/// The pw_error handed to a call: the host's full size, and the call's deadline (0: none).
package func hostError(_ deadline: Deadline?) -> pw_error {
    var error = pw_error()
    error.struct_size = MemoryLayout<pw_error>.size
    error.deadline_ns = deadline.map { UInt64(max(1, $0.monotonicNanoseconds)) } ?? 0
    return error
}
